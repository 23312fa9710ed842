"""TRL SFTTrainer's data path for conversational data with tools, re-implemented for hsa's tests.

Read from huggingface/trl at commit f2cd57710ae345ea6428ae95363267fcf38a3dc8 (Jul 2026), from
huggingface/datasets at 573a7712f3ea669cadc59ea2e58cc4a40905bc3a and huggingface/transformers at
5e43e2e892453b405ce6d2cb94387b3a3213f30a; written here from that reading (no code copied):

- loading: `load_dataset("json", data_files=...)` reads JSON lines with pyarrow's JSON reader
  (datasets src/datasets/packaged_modules/json/json.py, Json._generate_tables: paj.read_json per
  10 MB chunk). Arrow gives a column one type: objects become structs whose fields are the union of
  every row's keys, in order of first appearance, a key a row lacks reads back as None, ints and
  floats share a double, and two other types under one key do not load at all (ArrowInvalid).
  `arrow_load` below applies those rules to the whole file set;
- trl/trainer/sft_trainer.py:1457 tokenize_fn: `tools` run through json.loads when a string
  (:1458-1459), then for a conversational example (trl/data_utils.py:160 is_conversational:
  a `messages` list whose first item has `role`) `_tokenize` (trl/data_utils.py:401) calls
  apply_chat_template(messages, tools=tools, tokenize=True, return_dict=True,
  return_assistant_tokens_mask=assistant_only_loss) (:1507-1512);
- assistant_only_loss: sft_trainer.py:1228 swaps in get_training_chat_template
  (trl/chat_template_utils.py:947) when the template has no `{% generation %}` marker
  (has_generation_markers, chat_template_utils.py:37: the regex `{%-? generation -?%}`); that
  function returns TRL's own training copy only for a template equal to one it ships
  (qwen3: :1081) and raises ValueError otherwise (:1099);
- transformers src/transformers/utils/chat_template_utils.py _compile_jinja_template: a sandboxed
  Jinja environment with trim_blocks and lstrip_blocks, loop controls, `tojson` as
  json.dumps(ensure_ascii=False), raise_exception.

Usage: python3 trl_sft.py TEMPLATE_FILE FILE.jsonl... -> one JSON line per row on stdout:
  {"id", "error": null | why it does not load, "altered": [paths Arrow changed], "text": rendering}
The first line is {"generation_markers": bool} for the template.
"""
import json
import re
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment


class ArrowInvalid(Exception):
    pass


def infer(v):
    if v is None:
        return ('null',)
    if isinstance(v, bool):
        return ('bool',)
    if isinstance(v, int):
        return ('int',)
    if isinstance(v, float):
        return ('float',)
    if isinstance(v, str):
        return ('str',)
    if isinstance(v, list):
        t = ('null',)
        for x in v:
            t = unify(t, infer(x), '[]')
        return ('list', t)
    if isinstance(v, dict):
        return ('struct', {k: infer(x) for k, x in v.items()})
    raise TypeError(type(v))


def unify(a, b, path):
    if a[0] == 'null':
        return b
    if b[0] == 'null':
        return a
    if {a[0], b[0]} == {'int', 'float'}:
        return ('float',)
    if a[0] != b[0]:
        raise ArrowInvalid(f'{path}: changed from {a[0]} to {b[0]}')
    if a[0] == 'list':
        return ('list', unify(a[1], b[1], path + '[]'))
    if a[0] == 'struct':
        fields = dict(a[1])
        for k, t in b[1].items():
            fields[k] = unify(fields[k], t, f'{path}.{k}') if k in fields else t
        return ('struct', fields)
    return a


def materialize(v, t):
    if v is None:
        return None
    if t[0] == 'float':
        return float(v)
    if t[0] == 'list':
        return [materialize(x, t[1]) for x in v]
    if t[0] == 'struct':
        return {k: materialize(v.get(k), ft) for k, ft in t[1].items()}
    return v


def differences(a, b, path=''):
    """Where the value read back differs from the one written (values, key order, added keys)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            return [f'{path}: keys {list(a)} read back as {list(b)}']
        out = []
        for k in a:
            out += differences(a[k], b[k], f'{path}.{k}')
        return out
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += differences(x, y, f'{path}[{i}]')
        return out
    if a != b or type(a) is not type(b):
        return [f'{path}: {json.dumps(a)[:60]} read back as {json.dumps(b)[:60]}']
    return []


def arrow_load(rows):
    t = ('null',)
    for r in rows:
        t = unify(t, infer(r), '')
    return [materialize(r, t) for r in rows]


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters['tojson'] = tojson
    env.globals['raise_exception'] = raise_exception
    return env


def is_conversational(example):
    m = example.get('messages')
    return isinstance(m, list) and m and isinstance(m[0], dict) and 'role' in m[0]


def main():
    template_text = open(sys.argv[1], encoding='utf-8').read()
    markers = re.search(r'\{%-?\s*generation\s*-?%\}', template_text) is not None
    sys.stdout.write(json.dumps({'generation_markers': markers}) + '\n')
    template = environment().from_string(template_text)
    rows = []
    for path in sys.argv[2:]:
        with open(path, encoding='utf-8') as f:
            rows += [json.loads(line) for line in f]
    try:
        loaded = arrow_load(rows)
    except ArrowInvalid as e:
        for r in rows:
            sys.stdout.write(json.dumps({'id': r.get('id'), 'error': f'ArrowInvalid: {e}', 'altered': [], 'text': None}) + '\n')
        return
    for r, example in zip(rows, loaded):
        altered = differences({'messages': r.get('messages'), 'tools': r.get('tools')},
                              {'messages': example.get('messages'), 'tools': example.get('tools')})
        assert is_conversational(example), r.get('id')
        tools = example.get('tools')
        tools = json.loads(tools) if isinstance(tools, str) else tools
        kwargs = {'tools': tools} if tools else {}
        text = template.render(messages=example['messages'], add_generation_prompt=False, **kwargs)
        sys.stdout.write(json.dumps({'id': r.get('id'), 'error': None, 'altered': altered, 'text': text}, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
