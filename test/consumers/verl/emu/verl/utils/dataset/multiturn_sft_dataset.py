"""verl's multi-turn SFT dataset, re-implemented for the consumer test (verl cannot be installed here).

Read from volcengine/verl at b178a3cd56f58b2d502255daba591e92833930a7,
verl/utils/dataset/multiturn_sft_dataset.py:
- L43-53  `convert_nested_value_to_list_recursive`: numpy arrays (and dicts/lists holding them) to lists;
- L117-161 the parquet is read with pandas; `self.messages` and `self.tools` are the columns passed
  through that helper, `self.enable_thinking` the column's values; the system prompt and generation
  prompt tokens come from verl/utils/chat_template.py L31-44 (an empty user turn rendered once and
  twice; once more with the generation prompt);
- L166-218 `_process_single_message`: each message rendered ALONE (`[message]`, tools only for the
  first), tokenised; for a message after the first that is not a system message the system-prompt
  tokens are cut off its front; an assistant message is trained except its generation prompt;
- L220-264 `_build_messages`: the messages are the RAW row's (`dataframe.iloc[i].to_dict()`), so
  numpy arrays, not the converted `self.messages`;
- L266-293 `__getitem__`: messages tokenised one by one, concatenated, then `sanity_check`;
- L388-419 `sanity_check`: the whole conversation rendered at once must give the same ids
  (AssertionError unless `ignore_input_ids_mismatch`);
- L329-358 right padding / truncation to `max_length` (truncation "error" raises).
Parquet reading is the emulated pandas of pandas_rows.py; tensors are the numpy shim torch.py.
"""

import numpy as np

import torch
from pandas_rows import read_rows


def convert_nested_value_to_list_recursive(value):
    if isinstance(value, dict):
        return {k: convert_nested_value_to_list_recursive(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return convert_nested_value_to_list_recursive(value.tolist())
    if isinstance(value, list):
        return [convert_nested_value_to_list_recursive(v) for v in value]
    return value


def extract_system_prompt_and_generation(tokenizer):
    one = tokenizer.apply_chat_template([{"role": "user", "content": ""}], add_generation_prompt=False, tokenize=True)
    two = tokenizer.apply_chat_template([{"role": "user", "content": ""}] * 2, add_generation_prompt=False, tokenize=True)
    system_prompt = one[: -(len(two) - len(one))]
    with_prompt = tokenizer.apply_chat_template([{"role": "user", "content": ""}], add_generation_prompt=True, tokenize=True)
    return system_prompt, with_prompt[len(one):]


class MultiTurnSFTDataset:
    def __init__(self, parquet_files, tokenizer, config, processor=None, max_samples=-1):
        config = config or {}
        self.pad_mode = config.get("pad_mode", "right")
        self.truncation = config.get("truncation", "error")
        self.max_length = config.get("max_length", 1024)
        self.messages_key = config.get("messages_key", "messages")
        self.image_key = config.get("image_key", "images")
        self.video_key = config.get("video_key", "videos")
        self.tools_key = config.get("tools_key", "tools")
        self.enable_thinking_key = config.get("enable_thinking_key", "enable_thinking")
        self.apply_chat_template_kwargs = config.get("apply_chat_template_kwargs", {})
        self.ignore_input_ids_mismatch = config.get("ignore_input_ids_mismatch", False)
        self.max_samples = max_samples
        self.parquet_files = parquet_files if isinstance(parquet_files, list) else [parquet_files]
        self.tokenizer = tokenizer
        self.processor = processor
        self._read_files_and_process()

    def _read_files_and_process(self):
        frames = [read_rows(p) for p in self.parquet_files]
        rows = [r for f in frames for r in f.rows]
        from pandas_rows import Frame

        self.dataframe = Frame(rows)
        self.messages = [convert_nested_value_to_list_recursive(v) for v in self.dataframe.column(self.messages_key)]
        self.tools = [convert_nested_value_to_list_recursive(v) for v in self.dataframe.column(self.tools_key)] if self.tools_key in self.dataframe.columns else None
        self.enable_thinking = self.dataframe.column(self.enable_thinking_key) if self.enable_thinking_key in self.dataframe.columns else None
        self.system_prompt, self.generation_prompt = extract_system_prompt_and_generation(self.tokenizer)

    def __len__(self):
        return len(self.messages)

    def _process_single_message(self, index, message, tools=None, enable_thinking=None):
        kwargs = dict(self.apply_chat_template_kwargs)
        if enable_thinking is not None:
            kwargs["enable_thinking"] = enable_thinking
        inputs = self.tokenizer.apply_chat_template([message], tools=tools, add_generation_prompt=False, tokenize=True, return_dict=True, return_tensors="pt", **kwargs)
        inputs = dict(inputs)
        input_ids = inputs.pop("input_ids")[0]
        attention_mask = inputs.pop("attention_mask")[0]
        if index != 0 and message["role"] != "system":
            input_ids = input_ids[len(self.system_prompt):]
            attention_mask = attention_mask[len(self.system_prompt):]
        if message["role"] == "assistant":
            loss_mask = torch.ones_like(attention_mask)
            loss_mask[: len(self.generation_prompt)] = 0
        else:
            loss_mask = torch.zeros_like(attention_mask)
        return input_ids, loss_mask, attention_mask, inputs

    def _build_messages(self, example):
        return example[self.messages_key]

    def __getitem__(self, item):
        row = self.dataframe.row(item)
        messages = self._build_messages(row)
        tools = self.tools[item] if self.tools is not None else None
        enable_thinking = self.enable_thinking[item] if self.enable_thinking is not None else None
        ids, loss, attn = [], [], []
        for i, message in enumerate(messages):
            a, b, c, _ = self._process_single_message(index=i, message=message, tools=tools if i == 0 else None, enable_thinking=enable_thinking)
            ids.append(a)
            loss.append(b)
            attn.append(c)
        input_ids = torch.cat(ids)
        loss_mask = torch.cat(loss)
        attention_mask = torch.cat(attn)
        assert input_ids.shape == loss_mask.shape == attention_mask.shape
        self.sanity_check(input_ids, messages, tools, enable_thinking)
        n = input_ids.shape[0]
        if n > self.max_length:
            if self.truncation == "error":
                raise ValueError(f"sequence_length={n} is larger than self.max_length={self.max_length}")
            input_ids, loss_mask, attention_mask = input_ids[: self.max_length], loss_mask[: self.max_length], attention_mask[: self.max_length]
        return {"input_ids": input_ids, "attention_mask": attention_mask, "loss_mask": loss_mask, "sequence_length": n}

    def sanity_check(self, input_ids, messages, tools, enable_thinking):
        kwargs = dict(self.apply_chat_template_kwargs)
        if enable_thinking is not None:
            kwargs["enable_thinking"] = enable_thinking
        inputs = self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=False, tokenize=True, return_dict=True, return_tensors="pt", **kwargs)
        if not torch.equal(input_ids, inputs["input_ids"][0]):
            if not self.ignore_input_ids_mismatch:
                raise AssertionError("MultiTurnSFTDataset apply_chat_template to each turn separately and concat `input_ids` as a whole sequence, which may not equal to apply_chat_template to whole messages at once.")
