"""verl multi-turn SFT for `hsa export --to verl-sft` parquet (written beside it as verl_sft_dataset.py).

    python -m verl.trainer.sft_trainer ... \\
        data.custom_cls.path=x/verl-sft/verl_sft_dataset.py data.custom_cls.name=HsaMultiTurnSFTDataset

verl's ``MultiTurnSFTDataset`` tokenises each message on its own and asserts (its sanity check)
that the pieces concatenate to the whole conversation's tokens. With ChatML-family templates
(Qwen2.5, Qwen3) they never do for tool-calling, reasoning-trained data: the whole rendering
gives the last assistant turn a ``<think>`` block (and keeps the reasoning of turns after the last
user query), a message rendered alone never does, and consecutive tool results share one
``<|im_start|>user`` block in the whole rendering but get one block each alone. verl also reads
the raw pandas row, where parquet list fields are numpy arrays — a template's
``{% if message.tool_calls %}`` cannot test an array of two calls.

This subclass keeps verl's loading, loss masking (an assistant turn is trained after its
generation prompt), padding, truncation and sanity check, and changes three things:

- the ``tools`` column (JSON text: a struct column would null-pad differently shaped schemas) is
  decoded to the list of dicts ``apply_chat_template`` takes;
- messages are turned from numpy arrays back into lists (verl's own helper) before rendering;
- each message's tokens are its slice of the whole conversation's tokens, cut at the template's
  ``<|im_start|>`` blocks, so what verl trains on is the conversation as the template renders it —
  the tokens ``hsa export --max-tokens`` counts. A conversation whose blocks do not line up with its
  messages (a template of another family) raises a ValueError naming the row.
"""

import json

from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset, convert_nested_value_to_list_recursive

try:
    import torch

    def _ids(values):
        return torch.tensor(values, dtype=torch.long)

except ImportError:  # verl always has torch; this keeps the module importable without it
    torch = None

    def _ids(values):
        return list(values)


IM_START = "<|im_start|>"


class HsaMultiTurnSFTDataset(MultiTurnSFTDataset):
    """verl's multi-turn SFT dataset for hsa's parquet: whole-conversation tokens, cut per message."""

    def _read_files_and_process(self):
        super()._read_files_and_process()
        if self.tools is not None:
            self.tools = [json.loads(t) if isinstance(t, str) else t for t in self.tools]
        self._im_start = self.tokenizer.convert_tokens_to_ids(IM_START)
        self._conversation = None
        self._pieces = None

    def _build_messages(self, example):
        messages = convert_nested_value_to_list_recursive(super()._build_messages(example))
        # verl tokenises the messages of this row next, in order: their pieces are cut on the first.
        self._conversation = messages
        self._row_id = example.get("id")
        self._pieces = None
        return messages

    def _process_single_message(self, index, message, tools=None, enable_thinking=None):
        if index == 0 or self._pieces is None:
            self._pieces = self._cut(self._conversation, tools, enable_thinking)
        ids = self._pieces[index]
        n = len(ids)
        if message["role"] == "assistant":
            prompt = len(self.generation_prompt)
            if list(ids[:prompt]) != list(self.generation_prompt):
                raise ValueError(f"row {self._row_id}: message {index} (assistant) does not start with the generation prompt")
            loss = [0] * prompt + [1] * (n - prompt)
        else:
            loss = [0] * n
        return _ids(ids), _ids(loss), _ids([1] * n), {}

    def _cut(self, messages, tools, enable_thinking):
        """Each message's tokens: its blocks of the whole rendering (see the module comment)."""
        kwargs = dict(self.apply_chat_template_kwargs)
        if enable_thinking is not None:
            kwargs["enable_thinking"] = enable_thinking
        whole = self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=False, tokenize=True, **kwargs)
        if hasattr(whole, "input_ids") or isinstance(whole, dict):
            whole = whole["input_ids"]
        whole = list(whole)
        starts = [i for i, t in enumerate(whole) if t == self._im_start]
        if not starts or starts[0] != 0:
            raise ValueError(f"row {self._row_id}: the chat template's rendering does not start with {IM_START}")
        bounds = starts + [len(whole)]
        blocks = [whole[bounds[i] : bounds[i + 1]] for i in range(len(starts))]
        pieces = []
        b = 0
        for i, m in enumerate(messages):
            role = m.get("role")
            take = 0
            if i == 0:
                # With tools and no system message the template opens with a system block of its own.
                take = 2 if tools and role != "system" else 1
            elif role in ("user", "assistant", "system"):
                take = 1
            elif role == "tool":
                take = 0 if messages[i - 1].get("role") == "tool" else 1  # one block holds a run of results
            piece = []
            for _ in range(take):
                if b >= len(blocks):
                    raise ValueError(f"row {self._row_id}: message {i} ({role}) has no block of its own in the rendering")
                piece += blocks[b]
                b += 1
            pieces.append(piece)
        if b != len(blocks):
            raise ValueError(f"row {self._row_id}: the rendering has {len(blocks)} blocks, the messages account for {b}")
        return pieces
