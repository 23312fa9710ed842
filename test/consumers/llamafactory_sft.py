"""LLaMA-Factory's SFT loading and encoding path (template qwen3), re-implemented for hsa's tests.

Read from hiyouga/LLaMA-Factory at commit ff6d4d12eeb035d6ce06805a5733dd7b29f2ac30 (Aug 2026);
written here from that reading (no code copied). What it follows, with the places it read
(paths under src/llamafactory/):

- data/loader.py:76-88: `file_name` a folder -> every file in it, one file type (jsonl -> json);
- data/converter.py:135 SharegptDatasetConverter.__call__: the system tag or the system column,
  then turns must alternate (:161, user/observation at even positions, assistant/function at odd
  ones) and be of even count (:173); otherwise "Skipping this abnormal example" and the example
  becomes empty (:179-181); the last turn is the response;
- data/processor/supervised.py:108 preprocess_dataset ("Dropped invalid example" unless the prompt
  has an odd number of messages and one response, :113-116), :52 _encode_data_example
  (encode_multiturn, then each pair cut to cutoff_len by processor_utils.py:76 infer_seqlen);
- data/template.py:132 Template._encode (turn 0: prefix + system block `system + tool_text` when
  system or tools is truthy; every element tokenised on its own by _convert_elements_to_ids,
  :113), :483 ReasoningTemplate.encode_multiturn (enable_thinking True by default, data_args.py:124;
  before every assistant/function turn without `<think>`/`</think>` the ids of the empty thought
  add_thought() = thought_words joined, '<think>\\n' + '\\n</think>\\n\\n' (template.py:598)), :2058
  the qwen3 template's slots;
- data/formatter.py:72 StringFormatter.apply (each placeholder replaced once, content then idx),
  :96 FunctionFormatter.apply (content JSON: one call or a list; arguments re-serialised with
  json.dumps), :149 ToolFormatter.apply; data/tool_utils.py:80 QWEN_TOOL_PROMPT, :588 QwenToolUtils.

Usage: python3 llamafactory_sft.py EXPORT_DIR [DATASET_NAME] -> one JSON line per row on stdout:
  {"id", "dropped": null | reason, "pairs": [[source elements], [target elements]]...}
Each element is one string LLaMA-Factory hands to tokenizer.encode(add_special_tokens=False);
the caller counts them and applies cutoff_len.
"""
import json
import os
import re
import sys

THOUGHT = ('<think>\n', '\n</think>\n\n')
SYSTEM = '<|im_start|>system\n{{content}}<|im_end|>\n'
USER = '<|im_start|>user\n{{content}}<|im_end|>\n<|im_start|>assistant\n'
ASSISTANT = '{{content}}<|im_end|>\n'
FUNCTION = '{{content}}<|im_end|>\n'
OBSERVATION = '<|im_start|>user\n<tool_response>\n{{content}}\n</tool_response><|im_end|>\n<|im_start|>assistant\n'
TOOL_PROMPT = (
    '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n'
    'You are provided with function signatures within <tools></tools> XML tags:\n<tools>{tool_text}'
    '\n</tools>\n\nFor each function call, return a json object with function name and arguments within '
    '<tool_call></tool_call> XML tags:\n<tool_call>\n{{"name": <function-name>, '
    '"arguments": <args-json-object>}}\n</tool_call>'
)


def apply(slot, **kwargs):
    for name, value in kwargs.items():
        if not isinstance(value, str):
            raise RuntimeError(f'Expected a string, got {value}')
        slot = slot.replace('{{' + name + '}}', value, 1)
    return slot


def tool_text(tools_json):
    tools = json.loads(tools_json)
    if len(tools) == 0:
        return ''
    text = ''
    for tool in tools:
        wrapped = tool if tool.get('type') == 'function' else {'type': 'function', 'function': tool}
        text += '\n' + json.dumps(wrapped, ensure_ascii=False)
    return TOOL_PROMPT.format(tool_text=text)


def function_text(content):
    # FunctionFormatter.apply: with a <tool_call>...</tool_call> in the value, the text around it is
    # kept and the calls are read from inside it; without, the thought (if any) and the JSON.
    m = re.search(r'<tool_call>(.*?)</tool_call>', content, re.DOTALL)
    before = ''
    if m is not None:
        before = content.replace(m.group(0), '')
        content = m.group(1)
    else:
        t = re.search(re.escape(THOUGHT[0]) + '(.*?)' + re.escape(THOUGHT[1]), content, re.DOTALL)
        if t is not None:
            before = t.group(0)
            content = content.replace(t.group(0), '')
    calls = json.loads(content)
    if not isinstance(calls, list):
        calls = [calls]
    calls = [(c['name'], json.dumps(c['arguments'], ensure_ascii=False)) for c in calls]
    texts = [json.dumps({'name': n, 'arguments': json.loads(a)}, ensure_ascii=False) for n, a in calls]
    return before + '\n'.join(f'<tool_call>\n{t}\n</tool_call>' for t in texts)


def convert(example, attr):
    tags = attr['tags']
    tag_role = {tags['user_tag']: 'user', tags['assistant_tag']: 'assistant', tags['observation_tag']: 'observation',
                tags['function_tag']: 'function', tags.get('system_tag', 'system'): 'system'}
    accept = ((tags['user_tag'], tags['observation_tag']), (tags['assistant_tag'], tags['function_tag']))
    cols = attr['columns']
    messages = example[cols['messages']]
    role, content = tags['role_tag'], tags['content_tag']
    if tags.get('system_tag') and messages and messages[0][role] == tags['system_tag']:
        system = messages[0][content]
        messages = messages[1:]
    else:
        system = example[cols['system']] if cols.get('system') else ''
    aligned = []
    for k, m in enumerate(messages):
        if m[role] not in accept[k % 2]:
            return None, f'Invalid role tag at turn {k}: {m[role]}'
        aligned.append({'role': tag_role[m[role]], 'content': m[content]})
    if len(aligned) % 2 != 0:
        return None, 'Invalid message count'
    tools = example[cols['tools']] if cols.get('tools') else ''
    return {'prompt': aligned[:-1], 'response': aligned[-1:], 'system': system, 'tools': tools}, None


def encode(ex):
    messages = ex['prompt'] + ex['response']
    system, tools = ex['system'] or '', ex['tools']
    encoded = []
    for i, m in enumerate(messages):
        elements = []
        if i == 0 and (system or tools):
            elements.append(apply(SYSTEM, content=system + (tool_text(tools) if tools else '')))
        if m['role'] == 'user':
            elements.append(apply(USER, content=m['content'], idx=str(i // 2)))
        elif m['role'] == 'assistant':
            elements.append(apply(ASSISTANT, content=m['content']))
        elif m['role'] == 'observation':
            elements.append(apply(OBSERVATION, content=m['content']))
        elif m['role'] == 'function':
            elements.append(apply(FUNCTION, content=function_text(m['content'])))
        else:
            raise NotImplementedError(m['role'])
        encoded.append(elements)
    for i in range(0, len(messages), 2):
        c = messages[i + 1]['content']
        if THOUGHT[0].strip() not in c and THOUGHT[1].strip() not in c:
            encoded[i + 1] = [THOUGHT[0] + THOUGHT[1]] + encoded[i + 1]
    return [[encoded[i], encoded[i + 1]] for i in range(0, len(encoded), 2)]


def main():
    folder = sys.argv[1]
    with open(os.path.join(folder, 'dataset_info.json'), encoding='utf-8') as f:
        info = json.load(f)
    name = sys.argv[2] if len(sys.argv) > 2 else next(iter(info))
    attr = info[name]
    assert attr['formatting'] == 'sharegpt', attr
    local = os.path.join(folder, attr['file_name'])
    files = sorted(os.path.join(local, n) for n in os.listdir(local)) if os.path.isdir(local) else [local]
    assert all(p.endswith(('.json', '.jsonl')) for p in files), files
    for path in files:
        with open(path, encoding='utf-8') as f:
            for line in f:
                example = json.loads(line)
                ex, why = convert(example, attr)
                if ex is not None and (len(ex['prompt']) % 2 != 1 or len(ex['response']) != 1):
                    ex, why = None, 'Dropped invalid example'
                out = {'id': example.get('id'), 'dropped': why, 'pairs': encode(ex) if ex else None}
                sys.stdout.write(json.dumps(out, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
