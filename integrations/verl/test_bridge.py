"""The verl bridge against a real `hsa env serve` (started by test/verl-bridge.test.ts).

    HSA_ENV_URL=http://127.0.0.1:PORT HSA_ROWS_DIR=out/demo/rl python3 -m integrations.verl.test_bridge

(``python3 -m unittest integrations.verl.test_bridge`` runs the same tests without the summary);
it ends with its own line: ``verl bridge: N passed, M failed, K skipped``.
"""

from __future__ import annotations

import asyncio
import glob
import json
import os
import re
import sys
import tempfile
import unittest
import uuid

from integrations.verl import hsa_env, prepare
from integrations.verl.hsa_env import EnvError, HsaEnvTool, HsaInteraction, OrsClient, compute_score, parse_solution

URL = os.environ.get("HSA_ENV_URL", "")
ROWS_DIR = os.environ.get("HSA_ROWS_DIR", "")


def load_rows():
    rows = []
    for path in sorted(glob.glob(os.path.join(ROWS_DIR, "*.jsonl"))):
        with open(path, encoding="utf-8") as f:
            rows.extend(json.loads(l) for l in f if l.strip())
    return rows


def truth(row):
    return json.loads(row["reward_model"]["ground_truth"])


def env_of(row):
    return json.loads(row["extra_info"]["env"])


class AgentData:
    """What verl's agent loop hands a tool: the request id is what keys the episode."""

    def __init__(self, request_id):
        self.request_id = request_id


def qwen_response(row, skip_special=False, rename=None):
    """The decoded response verl would score: Qwen3 chat format, tool calls as <tool_call> blocks."""
    rename = rename or {}
    replay = {(r["name"], json.dumps(r["arguments"], sort_keys=True)): r["result"] for r in env_of(row)["tool_replay"]}
    out = ""
    for ti, turn in enumerate(truth(row)["turns"]):
        if ti > 0:
            out += f"<|im_end|>\n<|im_start|>user\n{turn['user']}<|im_end|>\n<|im_start|>assistant\n"
        if turn["calls"]:
            out += "<think>\nI will call the tools.\n</think>\n\n"
            out += "\n".join("<tool_call>\n" + json.dumps({"name": rename.get(c["name"], c["name"]), "arguments": c["arguments"]}, ensure_ascii=False) + "\n</tool_call>" for c in turn["calls"])
            out += "<|im_end|>\n<|im_start|>user\n"
            out += "\n".join("<tool_response>\n" + replay.get((c["name"], json.dumps(c["arguments"], sort_keys=True)), "") + "\n</tool_response>" for c in turn["calls"])
            out += "<|im_end|>\n<|im_start|>assistant\n"
        out += "<think>\n\n</think>\n\n" + turn["reply"]
    out += "<|im_end|>"
    if skip_special:
        out = out.replace("<|im_start|>", "").replace("<|im_end|>", "")
    return out


@unittest.skipUnless(URL and ROWS_DIR, "needs HSA_ENV_URL and HSA_ROWS_DIR (run from test/verl-bridge.test.ts)")
class BridgeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = load_rows()
        cls.multi = next(r for r in cls.rows if len(truth(r)["turns"]) > 1 and any(t["calls"] for t in truth(r)["turns"]))
        cls.single = next(r for r in cls.rows if len(truth(r)["turns"]) == 1 and len(truth(r)["turns"][0]["calls"]) >= 2)

        def renamed_call(r):
            t = next((t for t in json.loads(r["extra_info"]["transforms"]) if t["id"] == "tools.rename"), None)
            return t is not None and any(c["name"] in t["params"]["renamed"].values() for c in truth(r)["expected_calls"])

        cls.renamed = next(r for r in cls.rows if renamed_call(r))

    def test_imports_without_verl(self):
        try:
            import verl  # noqa: F401
        except ImportError:
            self.assertFalse(hsa_env.HAVE_VERL)
        tool = HsaEnvTool({"env_url": URL}, env_of(self.single)["tools"][0])
        self.assertEqual(tool.name, env_of(self.single)["tools"][0]["function"]["name"])

    def run_episode_like_verl(self, row):
        """Tools created and released per call (as verl does), keyed by the request id; then the interaction."""
        ready, tools = prepare.prepare_row(row)
        by_name = {t["function"]["name"]: HsaEnvTool({"env_url": URL}, t) for t in tools}
        request_id = f"verl-{uuid.uuid4()}"
        inter = HsaInteraction({"name": "hsa", "env_url": URL})

        async def go():
            await inter.start_interaction(request_id, **ready["extra_info"]["interaction_kwargs"])
            texts, responses = [], []
            for turn in truth(row)["turns"]:
                for c in turn["calls"]:
                    tool = by_name[c["name"]]
                    created = await tool.create(create_kwargs=ready["extra_info"]["tools_kwargs"][c["name"]]["create_kwargs"])
                    iid = created[0] if isinstance(created, tuple) else created
                    resp, step_reward, metrics = await tool.execute(iid, c["arguments"], agent_data=AgentData(request_id))
                    await tool.release(iid)
                    texts.append(resp.text)
                    self.assertEqual(step_reward, 0.0)
                    self.assertFalse(metrics["done"])
                done, text, score, meta = await inter.generate_response(request_id, [{"role": "assistant", "content": turn["reply"]}])
                responses.append((done, text, score, meta))
            return texts, responses

        return asyncio.run(go()), request_id

    def test_tool_and_interaction_replay_the_reference(self):
        for row in (self.single, self.multi):
            (texts, responses), request_id = self.run_episode_like_verl(row)
            recorded = [r["result"] for r in env_of(row)["tool_replay"]]
            self.assertEqual(sorted(texts), sorted(recorded))
            turns = truth(row)["turns"]
            for i, (done, text, score, meta) in enumerate(responses):
                if i < len(turns) - 1:
                    self.assertFalse(done)
                    self.assertEqual(text, turns[i + 1]["user"])
                else:
                    self.assertTrue(done)
                    self.assertEqual(meta["reward"]["components"]["tool_rationality"], 1)
                    self.assertEqual(meta["reward"]["components"]["skill_selection"], 1)
                    self.assertEqual(score, meta["reward"]["reward"])
            self.assertEqual(OrsClient(URL).reward(request_id)["final"], True)

    def test_compute_score_asks_the_server(self):
        for skip in (False, True):
            s = compute_score("hsa/live-commerce", qwen_response(self.multi, skip_special=skip), self.multi["reward_model"]["ground_truth"], self.multi["extra_info"])
            self.assertEqual(s["tool_rationality"], 1.0, s)
            self.assertEqual(s["skill_selection"], 1.0)
            self.assertEqual(s["hook_compliance"], 1.0)
            self.assertAlmostEqual(s["score"], 1.0)
        # Calling the tools by their old (pre-rename) names scores lower.
        row = self.renamed
        renamed = next(t for t in json.loads(row["extra_info"]["transforms"]) if t["id"] == "tools.rename")["params"]["renamed"]
        back = {new: old for old, new in renamed.items()}
        right = compute_score("hsa/live-commerce", qwen_response(row), None, row["extra_info"])
        stale = compute_score("hsa/live-commerce", qwen_response(row, rename=back), None, row["extra_info"])
        self.assertEqual(right["tool_rationality"], 1.0)
        self.assertLess(stale["tool_rationality"], 1.0)
        self.assertLess(stale["score"], right["score"])

    def test_compute_score_offline_gives_the_servers_numbers(self):
        row = self.renamed
        online = compute_score("hsa/live-commerce", qwen_response(row), None, row["extra_info"])
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        saved = dict(os.environ)
        try:
            del os.environ["HSA_ENV_URL"]
            os.environ.update(HSA_ROWS=os.path.join(ROWS_DIR, "*.jsonl"), HSA_BIN=os.path.join(repo, "bin", "hsa"), HSA_REWARD_ARGS=os.environ.get("HSA_REWARD_ARGS", "--tokenizer estimate"))
            offline = compute_score("hsa/live-commerce", qwen_response(row), None, row["extra_info"])
        finally:
            os.environ.clear()
            os.environ.update(saved)
        self.assertEqual(offline, online)

    def test_parse_solution(self):
        msgs = parse_solution(qwen_response(self.multi))
        turns = truth(self.multi)["turns"]
        # Reasoning stays in the content: the environment takes it apart and counts it.
        self.assertEqual([re.sub(r"<think>.*?</think>", "", m["content"], flags=re.S).strip() for m in msgs if "tool_calls" not in m], [t["reply"] for t in turns])
        self.assertTrue(all(m["content"].startswith("<think>") for m in msgs))
        calls = [c for m in msgs for c in m.get("tool_calls", [])]
        self.assertEqual([(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls], [(c["name"], c["arguments"]) for t in turns for c in t["calls"]])

    def test_bad_requests_raise_with_the_field(self):
        with self.assertRaises(EnvError) as e:
            OrsClient(URL).create(f"bad-{uuid.uuid4()}", {"index": 10**9})
        self.assertEqual(e.exception.status, 404)
        self.assertEqual(e.exception.field, "task_spec.index")

    def test_prepare_writes_tool_and_interaction_configs(self):
        with tempfile.TemporaryDirectory() as d:
            parts = sorted(glob.glob(os.path.join(ROWS_DIR, "*.jsonl")))[:1]
            out, tools, inter = (os.path.join(d, n) for n in ("rows.json", "tools.yaml", "interaction.yaml"))
            self.assertEqual(prepare.main(["--rows", *parts, "--out", out, "--tool-config", tools, "--interaction-config", inter, "--env-url", URL]), 0)
            with open(tools, encoding="utf-8") as f:
                cfg = json.load(f)
            names = [t["tool_schema"]["function"]["name"] for t in cfg["tools"]]
            self.assertEqual(names, sorted(set(names)))
            self.assertTrue(all(t["class_name"] == "integrations.verl.hsa_env.HsaEnvTool" for t in cfg["tools"]))
            with open(out, encoding="utf-8") as f:
                first = json.loads(f.readline())
            self.assertEqual(first["agent_name"], "tool_agent")
            idx = first["extra_info"]["index"]
            self.assertTrue(all(v == {"create_kwargs": {"index": idx}} for v in first["extra_info"]["tools_kwargs"].values()))
            with open(inter, encoding="utf-8") as f:
                self.assertEqual(json.load(f)["interaction"][0]["class_name"], "integrations.verl.hsa_env.HsaInteraction")
            # verl's RLHFDataset refuses any other extension (rl_dataset.py, _read_files_and_tokenize).
            with self.assertRaises(SystemExit) as e:
                prepare.main(["--rows", *parts, "--out", os.path.join(d, "rows.jsonl"), "--tool-config", tools])
            self.assertIn("*.json", str(e.exception))


if __name__ == "__main__":
    result = unittest.main(module="__main__", exit=False, argv=[sys.argv[0]], verbosity=2).result
    failed = len(result.failures) + len(result.errors)
    print(f"verl bridge: {result.testsRun - failed - len(result.skipped)} passed, {failed} failed, {len(result.skipped)} skipped")
    sys.exit(1 if failed or result.testsRun == 0 else 0)
