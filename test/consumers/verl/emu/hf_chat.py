"""transformers' `apply_chat_template`, re-implemented for the trainer emulations (no transformers here).

Read from huggingface/transformers at 5e43e2e892453b405ce6d2cb94387b3a3213f30a,
src/transformers/utils/chat_template_utils.py (`_compile_jinja_template`: an
ImmutableSandboxedEnvironment with trim_blocks and lstrip_blocks, the loopcontrols extension, a
`tojson` filter that is `json.dumps(x, ensure_ascii=False, ...)` with the default `, ` / `: `
separators, `raise_exception` and `strftime_now` globals) and tokenization_utils_base.py
(`apply_chat_template`: a conversation is batched only when it is a list/tuple of lists; tools must
be dicts; the template gets `messages`, `tools`, `documents`, `add_generation_prompt` and the
special tokens; the text is encoded without adding special tokens).

Token ids come from the Qwen3 tokenizer in Node (tokenizer-bridge.mjs): there is no `tokenizers`
wheel here. Numpy arrays stay numpy arrays all the way into the template, as in transformers.
"""

import json
import os
import subprocess
from datetime import datetime

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

import torch  # the numpy-backed shim beside this file

HERE = os.path.dirname(os.path.abspath(__file__))


def _compile(template: str):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime(2026, 1, 1).strftime(fmt)
    return env.from_string(template)


class Bridge:
    """The Node tokenizer process (one per emulation run)."""

    def __init__(self):
        self.proc = subprocess.Popen(
            ["node", os.path.join(HERE, "..", "tokenizer-bridge.mjs")],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1,
        )
        self.cache = {}

    def ask(self, q):
        self.proc.stdin.write(json.dumps(q, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def encode(self, text):
        hit = self.cache.get(text)
        if hit is None:
            hit = self.cache[text] = self.ask({"encode": text})
        return list(hit)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


class ChatTokenizer:
    """The parts of a transformers tokenizer the trainers use: apply_chat_template, encode, decode."""

    def __init__(self, config_path: str, bridge: Bridge):
        with open(config_path, encoding="utf-8") as f:
            config = json.load(f)
        self.chat_template = config["chat_template"]
        self._template = _compile(self.chat_template)
        self.bridge = bridge
        self.special_tokens = {k: config[k] for k in ("bos_token", "eos_token", "pad_token", "unk_token") if isinstance(config.get(k), str)}
        self.pad_token = config.get("pad_token")
        self.eos_token = config.get("eos_token")
        self.pad_token_id = self.convert_tokens_to_ids(self.pad_token) if self.pad_token else None

    def convert_tokens_to_ids(self, token):
        return self.bridge.ask({"token": token})

    def encode(self, text, add_special_tokens=False):
        return self.bridge.encode(text)

    def decode(self, ids, skip_special_tokens=False):
        return self.bridge.ask({"decode": [int(i) for i in ids]})

    def render(self, conversation, tools=None, documents=None, add_generation_prompt=False, **kwargs):
        if tools is not None:
            for t in tools:
                if not isinstance(t, dict):
                    raise ValueError("Tools should either be a JSON schema, or a callable function with type hints and a docstring suitable for auto-conversion to a schema.")
        chat = conversation.messages if hasattr(conversation, "messages") else conversation
        return self._template.render(messages=chat, tools=tools, documents=documents, add_generation_prompt=add_generation_prompt, **self.special_tokens, **kwargs)

    def apply_chat_template(self, conversation, tools=None, documents=None, add_generation_prompt=False, tokenize=True, return_dict=False, return_tensors=None, **kwargs):
        batched = isinstance(conversation, (list, tuple)) and len(conversation) > 0 and (isinstance(conversation[0], (list, tuple)) or hasattr(conversation[0], "messages"))
        if batched:
            raise NotImplementedError("batched conversations are not used by the emulated trainers")
        text = self.render(conversation, tools=tools, documents=documents, add_generation_prompt=add_generation_prompt, **kwargs)
        if not tokenize:
            return text
        ids = self.encode(text)
        if return_tensors == "pt":
            ids_out = torch.tensor([ids], dtype=torch.long)
            mask = torch.tensor([[1] * len(ids)], dtype=torch.long)
        else:
            ids_out, mask = ids, [1] * len(ids)
        if return_dict:
            return {"input_ids": ids_out, "attention_mask": mask}
        return ids_out
