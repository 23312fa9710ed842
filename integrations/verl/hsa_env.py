"""verl bridge to `hsa env serve` (Open Reward Standard over HTTP + SSE), standard library only.

- ``HsaEnvTool``: a tool in verl's ``BaseTool`` shape (async create/execute/calc_reward/release).
  verl creates and releases a tool instance per call, so the episode lives on the server and is
  keyed by verl's request id (``agent_data.request_id``; else ``create_kwargs["request_id"]``).
  The first call of a request starts the episode for the row named in ``create_kwargs``
  (``index`` = ``extra_info.index``, or ``id``); ``prepare.py`` writes those ``tools_kwargs``.
- ``HsaInteraction``: verl's interaction shape; hands the policy's final reply to the same episode
  and answers with the stop gate's feedback or the next user turn, ending with the reward.
- ``compute_score(data_source, solution_str, ground_truth, extra_info)``: re-runs the decoded
  response (Qwen / Hermes format: ``<tool_call>{...}</tool_call>``, ``<think>``) as an episode of
  the row ``extra_info["index"]`` on the server (``HSA_ENV_URL``) and returns
  ``{"score": reward, <every component>}``; without a server it runs ``hsa reward`` on the rows
  in ``HSA_ROWS`` (offline, the same code).

It imports and runs without verl: the base classes fall back to local shims of the same shape.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request
import uuid
from typing import Any, Optional

try:  # verl installed: the real base classes
    from verl.tools.base_tool import BaseTool  # type: ignore
    from verl.tools.schemas import OpenAIFunctionToolSchema, ToolResponse  # type: ignore

    HAVE_VERL = True
except Exception:  # verl absent: shims with the same shape
    HAVE_VERL = False

    class OpenAIFunctionToolSchema:  # type: ignore[no-redef]
        """The part of verl's schema object the bridge reads (``.function.name``)."""

        def __init__(self, schema: dict):
            self.raw = schema
            self.type = schema.get("type", "function")
            self.function = type("Function", (), dict(schema.get("function", {})))()

        def model_dump(self, **_: Any) -> dict:
            return self.raw

    class ToolResponse:  # type: ignore[no-redef]
        def __init__(self, text: Optional[str] = None, **_: Any):
            self.text = text

    class BaseTool:  # type: ignore[no-redef]
        def __init__(self, config: dict, tool_schema: Any):
            self.config = config
            if isinstance(tool_schema, dict):
                tool_schema = OpenAIFunctionToolSchema(tool_schema)
            self.tool_schema = tool_schema
            self.name = tool_schema.function.name

        def get_openai_tool_schema(self) -> Any:
            return self.tool_schema


try:
    from verl.interactions.base import BaseInteraction  # type: ignore
except Exception:

    class BaseInteraction:  # type: ignore[no-redef]
        def __init__(self, config: dict):
            self.config = config
            self.name = config.get("name", "hsa")


DEFAULT_URL = "http://127.0.0.1:8808"


class EnvError(Exception):
    """A 4xx/5xx from the environment server, with its status and the field it names."""

    def __init__(self, status: int, message: str, field: Optional[str] = None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.field = field


class OrsClient:
    """A minimal Open Reward Standard client for the ``hsa`` environment (blocking urllib)."""

    def __init__(self, url: Optional[str] = None, timeout: float = 30.0):
        self.url = (url or os.environ.get("HSA_ENV_URL") or DEFAULT_URL).rstrip("/")
        self.timeout = timeout

    def _request(self, method: str, path: str, body: Any = None, sid: Optional[str] = None) -> Any:
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"content-type": "application/json", "accept": "text/event-stream, application/json"}
        if sid is not None:
            headers["x-session-id"] = sid
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                text = res.read().decode("utf-8")
                if res.headers.get("content-type", "").startswith("text/event-stream"):
                    return read_sse(text)
                return json.loads(text) if text else None
        except urllib.error.HTTPError as e:
            try:
                err = json.loads(e.read().decode("utf-8"))
                raise EnvError(e.code, err.get("detail", ""), (err.get("error") or {}).get("field")) from None
            except (ValueError, AttributeError):
                raise EnvError(e.code, str(e)) from None

    def create(self, sid: str, task_spec: dict) -> None:
        self._request("POST", "/create", {"env_name": "hsa", "task_spec": task_spec}, sid)

    def call(self, sid: str, name: str, tool_input: dict) -> dict:
        """One ORS call; returns the ToolOutput (``blocks``, ``metadata``, ``reward``, ``finished``)."""
        payload = self._request("POST", "/hsa/call", {"name": name, "input": tool_input}, sid)
        if not payload.get("ok"):
            raise EnvError(500, payload.get("error", "tool call failed"))
        return payload["output"]

    def reward(self, sid: str) -> dict:
        return self._request("GET", "/hsa/reward", None, sid)

    def delete(self, sid: str) -> None:
        self._request("POST", "/delete", {}, sid)


def read_sse(text: str) -> Any:
    """The JSON carried by an ORS SSE answer (``task_id``, then ``chunk``… ``end``)."""
    data = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        event = next((l[7:] for l in lines if l.startswith("event: ")), "message")
        payload = "\n".join(l[6:] for l in lines if l.startswith("data: "))
        if event == "error":
            raise EnvError(500, payload)
        if event in ("chunk", "end"):
            data.append(payload)
    text = "".join(data)
    return json.loads(text) if text else None


def _messages_text(messages: list, roles: tuple) -> str:
    return "\n".join(m.get("content", "") for m in messages if m.get("role") in roles)


def _session_key(instance_id: str, kwargs: dict, create_kwargs: dict) -> str:
    agent_data = kwargs.get("agent_data")
    rid = getattr(agent_data, "request_id", None) if agent_data is not None else None
    return str(rid or create_kwargs.get("request_id") or kwargs.get("request_id") or instance_id)


def _task_spec(create_kwargs: dict) -> dict:
    for k in ("index", "id", "position"):
        if create_kwargs.get(k) is not None:
            return {k: create_kwargs[k]}
    raise ValueError("create_kwargs must name the row: index (extra_info.index) or id — see integrations/verl/prepare.py")


class _Episodes:
    """Which server session belongs to which verl request (shared by the tool and the interaction)."""

    started: dict = {}
    LIMIT = 100_000

    @classmethod
    def ensure(cls, client: OrsClient, key: str, create_kwargs: dict) -> None:
        if key in cls.started:
            return
        if len(cls.started) >= cls.LIMIT:  # oldest first: their episodes have long expired on the server
            for k in list(cls.started)[: cls.LIMIT // 2]:
                del cls.started[k]
        try:
            client.create(key, _task_spec(create_kwargs))
        except EnvError as e:
            if e.status != 409:  # 409: another instance of this request started it first
                raise
        cls.started[key] = True


class HsaEnvTool(BaseTool):
    """One of the row's tools, answered by the hsa environment (replayed results, tool errors, hooks)."""

    def __init__(self, config: dict, tool_schema: Any):
        super().__init__(config, tool_schema)
        self.client = OrsClient(config.get("env_url"), float(config.get("timeout", 30)))
        self._instances: dict = {}

    async def create(self, instance_id: Optional[str] = None, **kwargs: Any):
        instance_id = instance_id or str(uuid.uuid4())
        self._instances[instance_id] = dict(kwargs.get("create_kwargs") or {})
        # Newer verl unpacks (instance_id, response); older verl takes the id alone.
        return (instance_id, ToolResponse()) if HAVE_VERL and self.config.get("create_returns_tuple", True) else instance_id

    async def execute(self, instance_id: str, parameters: dict, **kwargs: Any):
        create_kwargs = self._instances.get(instance_id, {})
        key = _session_key(instance_id, kwargs, create_kwargs)
        await asyncio.to_thread(_Episodes.ensure, self.client, key, create_kwargs)
        out = await asyncio.to_thread(self.client.call, key, self.name, parameters if isinstance(parameters, dict) else {})
        messages = out["metadata"]["messages"]
        # The tool's result first, then any hook feedback the environment added (post_tool_use, round limits).
        text = "\n".join(filter(None, [_messages_text(messages, ("tool",)), _messages_text(messages, ("user", "system"))]))
        metrics = {"done": out["finished"], "force_reply": out["metadata"]["force_reply"]}
        return ToolResponse(text=text), 0.0, metrics

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        key = _session_key(instance_id, kwargs, self._instances.get(instance_id, {}))
        return float((await asyncio.to_thread(self.client.reward, key))["reward"])

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        # verl releases a tool after every call; the episode lives on (it expires on the server).
        self._instances.pop(instance_id, None)


class HsaInteraction(BaseInteraction):
    """The environment's side of a turn's end: stop-gate feedback, the next user turn, or the reward."""

    def __init__(self, config: dict):
        super().__init__(config)
        self.client = OrsClient(config.get("env_url"), float(config.get("timeout", 30)))
        self._rows: dict = {}

    async def start_interaction(self, instance_id: Optional[str] = None, **kwargs: Any) -> str:
        instance_id = instance_id or str(uuid.uuid4())
        self._rows[instance_id] = kwargs
        await asyncio.to_thread(_Episodes.ensure, self.client, instance_id, kwargs)
        return instance_id

    async def generate_response(self, instance_id: str, messages: list, **kwargs: Any):
        last = next((m for m in reversed(messages) if m.get("role") == "assistant"), {"content": ""})
        reply = {"content": last.get("content") or ""}
        if last.get("reasoning_content"):
            reply["reasoning_content"] = last["reasoning_content"]
        out = await asyncio.to_thread(self.client.call, instance_id, "hsa.reply", reply)
        text = _messages_text(out["metadata"]["messages"], ("user", "system"))
        score = float(out["reward"]) if out["finished"] and out["reward"] is not None else 0.0
        return out["finished"], text, score, out["metadata"]

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        return float((await asyncio.to_thread(self.client.reward, instance_id))["reward"])

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._rows.pop(instance_id, None)


_ROLE = re.compile(r"(?:<\|im_start\|>|\n|^)(system|user|assistant|tool)\n")
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)


def parse_solution(text: str) -> list:
    """Assistant messages of a decoded multi-turn response in the Qwen / Hermes chat format.

    The response starts inside an assistant turn; later turns start at ``<|im_start|>role`` (or at
    a ``role`` line when special tokens were skipped). Only assistant turns are kept — tool
    results, hook feedback and user turns are the environment's and it recomputes them.
    """
    text = text.replace("<|im_end|>", "\n").replace("<|endoftext|>", "")
    parts = _ROLE.split(text)
    segments = [("assistant", parts[0])] + [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]
    out = []
    for role, body in segments:
        if role != "assistant":
            continue
        calls = []
        for i, raw in enumerate(_TOOL_CALL.findall(body)):
            try:
                c = json.loads(raw)
                args = c.get("arguments", {})
                calls.append({"id": f"call_{len(out)}_{i}", "type": "function", "function": {"name": str(c.get("name", "")), "arguments": args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)}})
            except (ValueError, AttributeError):
                calls.append({"id": f"call_{len(out)}_{i}", "type": "function", "function": {"name": "invalid_tool_call", "arguments": "{}"}})
        content = _TOOL_CALL.sub("", body).strip()
        if not calls and not content and out:
            continue
        msg = {"role": "assistant", "content": content}
        if calls:
            msg["tool_calls"] = calls
        out.append(msg)
    return out


def _row_ref(extra_info: Optional[dict]) -> dict:
    extra_info = extra_info or {}
    if extra_info.get("index") is not None:
        return {"index": int(extra_info["index"])}
    if extra_info.get("id") is not None:
        return {"id": str(extra_info["id"])}
    raise ValueError("compute_score needs extra_info with the row's index (or id)")


def _result(reward: dict) -> dict:
    return {"score": float(reward["reward"]), **{k: float(v) for k, v in reward["components"].items()}}


def compute_score(data_source: str, solution_str: str, ground_truth: Any, extra_info: Optional[dict] = None, **kwargs: Any) -> dict:
    """verl's reward function: the hsa reward of the decoded response, with every component."""
    messages = parse_solution(solution_str)
    ref = _row_ref(extra_info)
    url = kwargs.get("env_url") or os.environ.get("HSA_ENV_URL")
    if url:
        client = OrsClient(url)
        sid = f"score-{uuid.uuid4()}"
        client.create(sid, {**ref, "invalid_arguments": "tool_error"})
        try:
            for m in messages:
                if client.call(sid, "hsa.message", {"message": m})["finished"]:
                    break
            return _result(client.reward(sid))
        finally:
            client.delete(sid)
    return _result(score_offline(ref, messages))


def score_offline(ref: dict, messages: list) -> dict:
    """`hsa reward` on one rollout (rows from ``HSA_ROWS``, the binary from ``HSA_BIN`` or PATH)."""
    rows = os.environ.get("HSA_ROWS")
    if not rows:
        raise RuntimeError("set HSA_ENV_URL (a running `hsa env serve`) or HSA_ROWS (RL parts, for offline scoring)")
    binary = os.environ.get("HSA_BIN") or shutil.which("hsa") or "hsa"
    cmd = [binary] if not binary.endswith((".js", "/bin/hsa")) else ["node", binary]
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        f.write(json.dumps({**ref, "messages": messages}, ensure_ascii=False) + "\n")
        path = f.name
    try:
        extra = os.environ.get("HSA_REWARD_ARGS", "").split()
        r = subprocess.run(cmd + ["reward", "--rows", rows, "--rollouts", path, "--invalid-arguments", "tool_error", "-q", *extra], capture_output=True, text=True, check=False)
        lines = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        if r.returncode != 0 or not lines or "error" in lines[0]:
            raise RuntimeError(f"hsa reward failed ({r.returncode}): {lines[0].get('error') if lines else r.stderr.strip()}")
        return lines[0]
    finally:
        os.unlink(path)
