"""verl agent loop for hsa RL rows: each row's own tools, every step answered by `hsa env serve`.

Registered for verl by the agent-loop config ``hsa export --to verl-rl`` writes
(``actor_rollout_ref.rollout.agent.agent_loop_config_path``)::

    - name: hsa_agent
      _target_: integrations.verl.agent_loop.HsaAgentLoop
      env_url: http://127.0.0.1:8808

and chosen per row by the ``agent_name`` column (``hsa_agent``).

Why a loop of its own rather than verl's ``ToolAgentLoop`` with ``HsaEnvTool``: ``ToolAgentLoop``
renders ONE tool list for the whole run (the tool config), passed through verl's pydantic schema
model, which keeps only ``type``, ``description`` and ``enum`` of a property — an hsa row's tool
list is its harness state's (renamed tools, rewritten schemas, distractors), so one run would
need a run per state. It also answers each call apart (a parallel round becomes several rounds
to the environment) and cuts calls beyond ``max_parallel_calls``. This loop:

- renders the row's own tools (``extra_info.env``, the full JSON Schemas, untrimmed) into the
  prompt, as the row's harness state shows them;
- sends each generated message whole to the row's episode (``hsa.message``: content, reasoning,
  all its calls), and appends what the environment answers — recorded results, hook feedback, the
  next user turn — as the chat template renders them, masked out of the loss;
- ends when the environment says the episode is done, and returns its reward as the rollout's
  ``reward_score`` (verl then skips its reward function), with the components in ``extra_fields``.

verl's limits still apply and are honoured: ``rollout.response_length`` (generation stops there),
``multi_turn.max_parallel_calls`` (calls past it are not sent: the environment answers the rest
as not run), ``multi_turn.max_tool_response_length`` and ``tool_response_truncate_side`` (a tool
result longer is cut the way verl cuts it). ``hsa export --to verl-rl`` measures the data and
writes values none of the rows' reference episodes reach.

Tools get what verl passes a tool: the episode is keyed by verl's request id, the row named by
``extra_info.interaction_kwargs`` (``{"name": "hsa", "index", "id"}``; the id is used: an index
also exists in other sets of rows).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput
from verl.experimental.agent_loop.tool_parser import ToolParser

try:
    from .hsa_env import EnvError, OrsClient, _task_spec
except ImportError:  # loaded as a top-level module (PYTHONPATH set to this folder)
    from hsa_env import EnvError, OrsClient, _task_spec  # type: ignore

logger = logging.getLogger(__file__)


def _truncate(text: str, limit: int, side: str) -> str:
    """A tool result cut as verl's ToolAgentLoop cuts it (tool_agent_loop.py, `_call_tool`)."""
    if not text or len(text) <= limit:
        return text
    if side == "left":
        return text[:limit] + "...(truncated)"
    if side == "right":
        return "(truncated)..." + text[-limit:]
    half = limit // 2
    return text[:half] + "...(truncated)..." + text[-half:]


def row_tools(extra_info: dict) -> list:
    env = extra_info.get("env")
    env = json.loads(env) if isinstance(env, str) else (env or {})
    return list(env.get("tools") or [])


class HsaAgentLoop(AgentLoopBase):
    """One hsa RL row as a multi-turn episode against `hsa env serve`."""

    def __init__(self, *args, env_url: str | None = None, timeout: float = 30.0, **kwargs):
        super().__init__(*args, **kwargs)
        rollout = self.config.actor_rollout_ref.rollout
        multi_turn = rollout.multi_turn
        self.response_length = rollout.response_length
        self.max_parallel_calls = multi_turn.max_parallel_calls
        self.max_tool_response_length = multi_turn.max_tool_response_length
        self.truncate_side = multi_turn.tool_response_truncate_side
        self.max_assistant_turns = multi_turn.max_assistant_turns
        self.tool_parser = ToolParser.get_tool_parser(multi_turn.format, self.tokenizer)
        self.client = OrsClient(env_url or os.environ.get("HSA_ENV_URL"), timeout)

    async def run(self, sampling_params: dict[str, Any], **kwargs) -> AgentLoopOutput:
        extra_info = dict(kwargs.get("extra_info") or {})
        tools = row_tools(extra_info)
        messages = [dict(m) for m in kwargs["raw_prompt"]]
        request_id = uuid4().hex
        # The row's episode: named as the interaction (and the tools) would be told (index, else id).
        # The row by its id (unique across a run's rows, unlike an index, which another set of rows
        # also has), else its index.
        named = dict(extra_info.get("interaction_kwargs") or extra_info)
        spec = {"id": str(named["id"])} if named.get("id") is not None else _task_spec(named)
        try:
            await asyncio.to_thread(self.client.create, request_id, spec)
        except EnvError as e:
            # A row the server does not have: it serves other rows than the ones verl trains on.
            raise RuntimeError(f"hsa env at {self.client.url}: cannot start the episode of row {spec} ({e}); serve the RL rows this export was made from (hsa env serve --rows 'OUT/rl/*.jsonl')") from e
        metrics: dict = {}
        prompt_ids = await self.apply_chat_template(messages, tools=tools)
        prompt_len = len(prompt_ids)
        response_mask: list = []
        reward, components, finished, turns, stop = None, {}, False, 0, None
        try:
            while True:
                output = await self.server_manager.generate(request_id=request_id, prompt_ids=prompt_ids, sampling_params=sampling_params, image_data=None, video_data=None)
                prompt_ids = prompt_ids + list(output.token_ids)
                response_mask += [1] * len(output.token_ids)
                turns += 1
                if len(response_mask) >= self.response_length:
                    stop = "response_length"
                    break
                content, calls = await self.tool_parser.extract_tool_calls(list(output.token_ids))
                message = {"role": "assistant", "content": content.replace(self.tokenizer_eos(), "").strip("\n") if content else ""}
                if calls:
                    message["tool_calls"] = [
                        {"id": f"call_{turns}_{i}", "type": "function", "function": {"name": c.name, "arguments": c.arguments}} for i, c in enumerate(calls[: self.max_parallel_calls])
                    ]
                try:
                    answer = await asyncio.to_thread(self.client.call, request_id, "hsa.message", {"message": message})
                except EnvError as e:
                    # The environment refused the step (an expired session, say): the episode ends
                    # here and is scored as far as it got, rather than failing verl's whole batch.
                    logger.warning("hsa env refused a step of %s: %s", request_id, e)
                    stop = f"env_error {e.status}"
                    break
                added = answer["metadata"]["messages"]
                if answer["finished"]:
                    finished = True
                    reward = answer["metadata"].get("reward") or {}
                    components = reward.get("components", {})
                    reward = answer["reward"]
                    break
                if self.max_assistant_turns and turns >= self.max_assistant_turns:
                    stop = "max_assistant_turns"
                    break
                for m in added:
                    if m.get("role") == "tool":
                        m["content"] = _truncate(m.get("content") or "", self.max_tool_response_length, self.truncate_side)
                ids = await self.apply_chat_template(added, remove_system_prompt=True)
                if len(response_mask) + len(ids) >= self.response_length:
                    stop = "response_length"
                    break
                prompt_ids = prompt_ids + ids
                response_mask += [0] * len(ids)
            if not finished:
                try:
                    reward = float((await asyncio.to_thread(self.client.reward, request_id))["reward"])
                except EnvError as e:
                    logger.warning("hsa env: no reward for %s: %s", request_id, e)
                    reward = 0.0
        finally:
            try:
                await asyncio.to_thread(self.client.delete, request_id)
            except Exception as e:  # the session expires on the server anyway
                logger.warning("hsa env: could not close session %s: %s", request_id, e)
        response_ids = prompt_ids[prompt_len:]
        return AgentLoopOutput(
            prompt_ids=prompt_ids[:prompt_len],
            response_ids=response_ids[: self.response_length],
            response_mask=response_mask[: self.response_length],
            reward_score=float(reward) if reward is not None else 0.0,
            num_turns=turns,
            metrics=metrics,
            extra_fields={"hsa_reward_components": components, "hsa_finished": finished, "hsa_stop": stop},
        )

    def tokenizer_eos(self) -> str:
        return getattr(self.tokenizer, "eos_token", None) or "<|im_end|>"
