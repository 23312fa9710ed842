"""Load an `hsa export --to verl-sft` folder the way verl's SFT trainer does, record by record.

    /usr/bin/python3 test/consumers/verl/sft_check.py --rows rows.json --tokenizer-config tokenizer_config.json \\
        [--custom-cls integrations/verl/sft_dataset.py:HsaMultiTurnSFTDataset] [--max-length N]

`rows.json` holds the parquet rows (read by DuckDB in the test, every struct field present). The
dataset class is verl's (the emulation in emu/verl) or a custom class loaded from a file as
verl's `load_extern_object` does (data.custom_cls.path / name). One JSON line per row on stdout:
{"id", "ok", "error"?, "tokens"?, "trained"?, "text"?}; `text` is the decoded training sequence
for rows named in --text-of.
"""

import argparse
import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "emu"))

from hf_chat import Bridge, ChatTokenizer  # noqa: E402
from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset  # noqa: E402


def load_class(spec):
    if not spec:
        return MultiTurnSFTDataset
    path, name = spec.rsplit(":", 1)
    # verl.utils.import_utils.load_extern_object: the file is imported as a module, the name read from it.
    module_spec = importlib.util.spec_from_file_location("custom_module", path)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules["custom_module"] = module
    module_spec.loader.exec_module(module)
    return getattr(module, name)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", required=True)
    ap.add_argument("--tokenizer-config", required=True)
    ap.add_argument("--custom-cls")
    ap.add_argument("--max-length", type=int, default=1 << 20)
    ap.add_argument("--text-of", default="")
    a = ap.parse_args()
    bridge = Bridge()
    try:
        tokenizer = ChatTokenizer(a.tokenizer_config, bridge)
        config = {"messages_key": "messages", "tools_key": "tools", "enable_thinking_key": "enable_thinking", "max_length": a.max_length, "truncation": "error", "pad_mode": "right"}
        dataset = load_class(a.custom_cls)(parquet_files=a.rows, tokenizer=tokenizer, config=config, processor=None)
        want_text = set(filter(None, a.text_of.split(",")))
        for i in range(len(dataset)):
            rid = dataset.dataframe.rows[i].get("id")
            try:
                item = dataset[i]
                out = {"id": rid, "ok": True, "tokens": int(item["sequence_length"]), "trained": int(item["loss_mask"].sum())}
                if rid in want_text:
                    n = item["sequence_length"]
                    out["text"] = tokenizer.decode(item["input_ids"][:n])
                    out["trained_text"] = tokenizer.decode([t for t, m in zip(item["input_ids"][:n], item["loss_mask"][:n]) if m])
            except Exception as e:  # every row's fate is reported; the test decides
                out = {"id": rid, "ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
            print(json.dumps(out, ensure_ascii=False), flush=True)
    finally:
        bridge.close()


if __name__ == "__main__":
    main()
