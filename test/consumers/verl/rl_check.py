"""Run an `hsa export --to verl-rl` folder the way verl's PPO trainer rolls it out, row by row.

    /usr/bin/python3 test/consumers/verl/rl_check.py --export x/verl-rl --rows rows.json \\
        --tokenizer-config tokenizer_config.json --env-url http://127.0.0.1:PORT

`rows.json` holds train.parquet's rows (read by DuckDB in the test; verl's RLHFDataset reads
parquet through `datasets`, which gives plain lists and dicts). The trainer config is verl's
defaults for the keys the rollout reads (verl/trainer/config/_generated_ppo_trainer.yaml at
b178a3cd56f58b2d502255daba591e92833930a7: L198-199 rollout prompt/response length interpolated
from data.max_prompt_length / max_response_length, L238-257 multi_turn and agent) with the
export's verl_overrides.txt applied. The agent loop is the one agent_loop.yaml registers,
imported from the export folder (as PYTHONPATH=<export> makes verl do). The policy is scripted:
it plays the row's reference (reward_model.ground_truth) — each turn's calls in one message,
then the reply, each after an empty think block (a reply recorded with its reasoning keeps it), in the hermes format the Qwen3 template
teaches. verl's overlong-prompt filter (rl_dataset.py L181-261: without data.tool_config_path the
prompt is rendered without tools) runs first. One JSON line per row on stdout.
"""

import argparse
import asyncio
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "emu"))

from hf_chat import Bridge, ChatTokenizer  # noqa: E402
from verl.experimental.agent_loop import agent_loop as verl_loop  # noqa: E402

THINK = "<think>\n\n</think>\n\n"


class Node(dict):
    """An OmegaConf node as the loop reads it: attributes and .get."""

    def __getattr__(self, k):
        try:
            return self[k]
        except KeyError:
            raise AttributeError(k) from None


def defaults():
    return {
        "data": {"max_prompt_length": 512, "max_response_length": 512, "filter_overlong_prompts": False, "return_raw_chat": True, "truncation": "error", "apply_chat_template_kwargs": {}, "tool_config_path": None},
        "actor_rollout_ref": {"rollout": {
            "mode": "async",
            "multi_turn": {"enable": False, "max_assistant_turns": None, "max_user_turns": None, "max_parallel_calls": 1, "max_tool_response_length": 256, "tool_response_truncate_side": "middle", "format": "hermes", "tool_config_path": None, "interaction_config_path": None},
            "agent": {"default_agent_loop": "single_turn_agent", "agent_loop_config_path": None},
        }},
    }


def value(text):
    if text in ("true", "True"):
        return True
    if text in ("false", "False"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def config_with(overrides_file):
    cfg = defaults()
    with open(overrides_file, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            key, _, text = line.partition("=")
            node = cfg
            parts = key.split(".")
            for p in parts[:-1]:
                if p not in node:
                    raise SystemExit(f"{overrides_file}: {key}: verl has no key {p} here")
                node = node[p]
            if parts[-1] not in node:
                raise SystemExit(f"{overrides_file}: {key}: verl has no such key")
            node[parts[-1]] = value(text)
    rollout = cfg["actor_rollout_ref"]["rollout"]
    rollout["prompt_length"] = cfg["data"]["max_prompt_length"]
    rollout["response_length"] = cfg["data"]["max_response_length"]

    def wrap(d):
        return Node({k: wrap(v) if isinstance(v, dict) else v for k, v in d.items()})

    return wrap(cfg)


class Generated:
    def __init__(self, ids):
        self.token_ids = ids
        self.num_preempted = None
        self.log_probs = None
        self.routed_experts = None


class ReferencePolicy:
    """A server manager whose model answers with the row's reference, message by message."""

    def __init__(self, tokenizer, truth):
        self.tokenizer = tokenizer
        self.script = []
        for turn in truth["turns"]:
            if turn["calls"]:
                calls = "\n".join("<tool_call>\n" + json.dumps({"name": c["name"], "arguments": c["arguments"]}, ensure_ascii=False) + "\n</tool_call>" for c in turn["calls"])
                self.script.append(THINK + calls + "<|im_end|>")
            # A reply recorded with its reasoning (`<think>…</think>` inline) is generated as it is.
            reply = turn["reply"]
            self.script.append(("" if "</think>" in reply else THINK) + reply + "<|im_end|>")
        self.prompts = []

    async def generate(self, request_id, prompt_ids, sampling_params, image_data=None, video_data=None):
        self.prompts.append(list(prompt_ids))
        text = self.script.pop(0) if self.script else "<|im_end|>"
        return Generated(self.tokenizer.encode(text))


async def roll_all(config, tokenizer, rows, concurrency):
    gate = asyncio.Semaphore(concurrency)

    async def one(row):
        async with gate:
            return await roll(config, tokenizer, row)

    return await asyncio.gather(*(one(r) for r in rows))


async def roll(config, tokenizer, row):
    extra = row["extra_info"] or {}
    out = {"id": extra.get("id")}
    if config.data.filter_overlong_prompts:
        n = len(tokenizer.apply_chat_template(row["prompt"], add_generation_prompt=True, tokenize=True))
        out["filtered"] = n > config.data.max_prompt_length
        if out["filtered"]:
            return out
    truth = json.loads(row["reward_model"]["ground_truth"])
    policy = ReferencePolicy(tokenizer, truth)
    kwargs = {**row, "raw_prompt": row["prompt"], "index": extra.get("index", 0), "tools_kwargs": extra.get("tools_kwargs") or {}, "interaction_kwargs": extra.get("interaction_kwargs") or {}}
    try:
        result = await verl_loop.run_agent_loop(config, policy, tokenizer, None, {"temperature": 1.0}, **kwargs)
    except Exception as e:
        out.update(ok=False, error=f"{type(e).__name__}: {e}")
        return out
    env = json.loads(extra["env"])
    # The prompt verl built is the row rendered with its own tools (the ids of that text; the
    # tokenizer caches it, so this costs no second encoding).
    prompt_text = tokenizer.apply_chat_template(row["prompt"], tools=env["tools"], add_generation_prompt=True, tokenize=False)
    prompt_is_rendering = tokenizer.encode(prompt_text) == list(result.prompt_ids)
    response_text = tokenizer.decode(result.response_ids)
    called = {c["name"] for t in truth["turns"] for c in t["calls"]}
    out.update(
        ok=True,
        reward=result.reward_score,
        finished=result.extra_fields.get("hsa_finished"),
        stop=result.extra_fields.get("hsa_stop"),
        components=result.extra_fields.get("hsa_reward_components"),
        prompt_tokens=len(result.prompt_ids),
        response_tokens=len(result.response_ids),
        truncated_results="(truncated)" in response_text,
        script_left=len(policy.script),
        tools_in_prompt=prompt_is_rendering and all(json.dumps(t, ensure_ascii=False) in prompt_text for t in env["tools"]),
        results_in_response=all(r["result"] in response_text for r in env["tool_replay"] if r["name"] in called),
    )
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--export", required=True)
    ap.add_argument("--rows", required=True)
    ap.add_argument("--tokenizer-config", required=True)
    ap.add_argument("--env-url", required=True)
    ap.add_argument("--concurrency", type=int, default=16)
    a = ap.parse_args()
    sys.path.insert(0, os.path.abspath(a.export))
    config = config_with(os.path.join(a.export, "verl_overrides.txt"))
    loop_config = config.actor_rollout_ref.rollout.agent.agent_loop_config_path
    with open(os.path.join(a.export, loop_config), encoding="utf-8") as f:
        entries = json.load(f)
    verl_loop.load_agent_loop_config([{**e, "env_url": a.env_url} for e in entries])
    with open(a.rows, encoding="utf-8") as f:
        rows = json.load(f)
    bridge = Bridge()
    try:
        tokenizer = ChatTokenizer(a.tokenizer_config, bridge)
        # verl rolls a batch out concurrently (agent_loop.py L476-486: one task per row, gathered).
        results = asyncio.run(roll_all(config, tokenizer, rows, a.concurrency))
        for out in results:
            print(json.dumps(out, ensure_ascii=False), flush=True)
    finally:
        bridge.close()


if __name__ == "__main__":
    main()
