"""Make hsa RL rows ready for verl's tool agent loop (standard library only).

    python3 -m integrations.verl.prepare --rows out/rl/part-00000.jsonl ... \\
        --out rl-verl.json --tool-config hsa_tools.yaml --interaction-config hsa_interaction.yaml

``--out`` is JSON lines named ``*.json``: verl's RLHFDataset reads ``.parquet`` and ``.json`` files
only (verl/utils/dataset/rl_dataset.py, ``_read_files_and_tokenize``; ``.jsonl`` raises), and the
standard library cannot write parquet. ``hsa export --to verl-rl`` writes both, with hsa's own
agent loop, which shows each row its own tools — prefer it; this script serves verl's stock
``ToolAgentLoop``, which shows every row the one tool list of the config.

Each row gets ``agent_name: tool_agent``, ``extra_info.tools_kwargs`` (every tool of the row with
``create_kwargs: {"index": <extra_info.index>}``, so ``HsaEnvTool`` knows which episode to start)
and ``extra_info.interaction_kwargs`` (``{"name": "hsa", "index": …}`` for ``HsaInteraction``).
The tool config lists every tool name met in the rows (sorted), each served by ``HsaEnvTool``,
with the schema of the first row that has it: verl registers tools per run, not per row, so the
environment — which only accepts the row's own tools — is what keeps each episode honest.
Both configs are written as JSON, which YAML (OmegaConf) reads as it is.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys

TOOL_CLASS = "integrations.verl.hsa_env.HsaEnvTool"
INTERACTION_CLASS = "integrations.verl.hsa_env.HsaInteraction"


def _rows(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.strip():
                    try:
                        yield path, n, json.loads(line)
                    except ValueError as e:
                        raise SystemExit(f"{path}:{n}: not valid JSON ({e})")


def prepare_row(row: dict) -> tuple:
    """The row with its verl kwargs, and its tools (OpenAI shape)."""
    extra = dict(row.get("extra_info") or {})
    env = extra.get("env")
    env = json.loads(env) if isinstance(env, str) else (env or {})
    tools = env.get("tools") or []
    index = extra.get("index")
    extra["tools_kwargs"] = {t["function"]["name"]: {"create_kwargs": {"index": index}} for t in tools}
    extra["interaction_kwargs"] = {"name": "hsa", "index": index}
    return {**row, "agent_name": row.get("agent_name", "tool_agent"), "extra_info": extra}, tools


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", nargs="+", required=True, help="hsa RL parts (.jsonl or .jsonl.gz)")
    ap.add_argument("--out", required=True, help="rows for verl: JSON lines, named *.json (what verl's RL dataset reads)")
    ap.add_argument("--tool-config", required=True, help="verl tool config to write")
    ap.add_argument("--interaction-config", help="verl interaction config to write")
    ap.add_argument("--env-url", default="http://127.0.0.1:8808", help="where `hsa env serve` listens")
    a = ap.parse_args(argv)
    if not a.out.endswith(".json"):
        raise SystemExit(f"--out {a.out}: name it *.json — verl's RL dataset reads .parquet and .json files only (JSON lines in a .json file are read by datasets' json loader)")
    schemas = {}
    count = 0
    with open(a.out, "w", encoding="utf-8") as out:
        for path, n, row in _rows(a.rows):
            try:
                ready, tools = prepare_row(row)
            except (KeyError, TypeError, ValueError) as e:
                raise SystemExit(f"{path}:{n}: extra_info.env: {e}")
            for t in tools:
                schemas.setdefault(t["function"]["name"], t)
            out.write(json.dumps(ready, ensure_ascii=False) + "\n")
            count += 1
    config = {"tools": [{"class_name": TOOL_CLASS, "config": {"type": "native", "env_url": a.env_url}, "tool_schema": schemas[k]} for k in sorted(schemas)]}
    with open(a.tool_config, "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
        f.write("\n")
    if a.interaction_config:
        with open(a.interaction_config, "w", encoding="utf-8") as f:
            json.dump({"interaction": [{"name": "hsa", "class_name": INTERACTION_CLASS, "config": {"env_url": a.env_url}}]}, f, indent=2)
            f.write("\n")
    print(f"prepare: {count} rows, {len(schemas)} tool names -> {a.out}, {a.tool_config}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
