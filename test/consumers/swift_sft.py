"""ms-swift's SFT loading and encoding path, re-implemented for hsa's consumer tests.

Read from modelscope/ms-swift at commit 3602360a562313afbf2ef6065fdf61f271a2c5b9 (Aug 2026);
written here from that reading (no code copied). What it follows, with the places it read:

- swift/dataset/preprocessor/core.py:633 MessagesPreprocessor.preprocess -> :498 to_std_messages
  (roles kept; no sharegpt keys here), :69 _check_messages (every key but role/content/loss/
  loss_scale removed; roles limited to system/user/tool_call/tool_response/tool/assistant;
  content not None), :175 batched_preprocess (an exception with the default strict=False
  deletes the row: `row = []` at :208, with only a logged warning);
- swift/template/template_inputs.py:97 StdTemplateInputs.from_dict (the first message, if
  system, becomes `system` at :111; tool_response -> tool at :117);
- swift/template/base.py:321 _preprocess_tools (tools as JSON text parsed, each wrapped),
  :336 _preprocess_tool_call (a run of tool_call messages becomes one assistant message),
  :1273 _swift_prepare_inputs (assistant + tool run -> one tool query; consecutive assistant
  messages joined as a list, consecutive user messages concatenated with no separator, :1319),
  :1229 _add_non_thinking_prefix (every assistant message when training with loss_scale
  'default'), :1324 _swift_encode (query/response pairs; `assert query_role in {'user', 'tool'}`
  at :1369 and `assert response_role in {'assistant'}` at :1370);
- swift/agent_template/hermes.py:74 _format_tools, :93 _format_tool_calls, :25
  _get_tool_responses, :35 _format_tool_responses; swift/agent_template/base.py:126
  _parse_tool_call, :196 wrap_tool;
- swift/template/templates/qwen.py:62 Qwen3MixedTemplateMeta (default_system None,
  non_thinking_prefix '<think>\\n\\n</think>\\n\\n'), swift/template/templates/utils.py:13
  ChatmlTemplateMeta (prompt, chat_sep, suffix, system_prefix).

Usage: python3 swift_sft.py FILE.jsonl...  -> one JSON line per row on stdout:
  {"id", "deleted": null | reason, "glued": [what was concatenated], "text": the encoded text}
The text is the join of the template's contexts; its added tokens (<|im_start|>, <think>...)
cut it wherever two contexts meet, so its token count is the length of the ids ms-swift builds.
"""
import json
import sys

NON_THINKING = '<think>\n\n</think>\n\n'
PROMPT = '<|im_start|>user\n{{QUERY}}<|im_end|>\n<|im_start|>assistant\n'
CHAT_SEP = '<|im_end|>\n'
SUFFIX = '<|im_end|>\n'
SYSTEM_PREFIX = '<|im_start|>system\n{{SYSTEM}}<|im_end|>\n'
ROLES = {'system', 'user', 'tool_call', 'tool_response', 'tool', 'assistant'}


def parse_json(s):
    return json.loads(s) if isinstance(s, str) else s


def format_tools(tools, system):
    descs = [json.dumps(t, ensure_ascii=False) for t in tools]
    return ((system or '') + '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n'
            'You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n' + '\n'.join(descs) +
            '\n</tools>\n\nFor each function call, return a json object with function name and arguments within '
            '<tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call>')


def wrap_tool(tool):
    assert isinstance(tool, dict), tool
    if 'type' not in tool and 'function' not in tool:
        tool = {'type': 'function', 'function': tool}
    return tool


def tool_call_text(content):
    obj = parse_json(content)
    args = obj.get('arguments')
    if args is None:
        args = obj.get('parameters')
    args = parse_json(args)
    assert args is not None, content
    return '<tool_call>\n' + json.dumps({'name': obj['name'], 'arguments': args}, ensure_ascii=False) + '\n</tool_call>'


def encode(row):
    """The text of one row, and what was glued; raises where ms-swift raises (the row is then deleted)."""
    glued = []
    messages = row['messages']
    assert len(messages) > 0
    messages = [{k: v for k, v in m.items() if k in ('role', 'content', 'loss', 'loss_scale')} for m in messages]
    for m in messages:
        assert m['role'] in ROLES, m
        assert m['content'] is not None, m
    system = None
    if messages and messages[0]['role'] == 'system':
        system = messages.pop(0)['content']
    for m in messages:
        if m['role'] == 'tool_response':
            m['role'] = 'tool'
        if m['role'] in ('tool_call', 'tool') and not isinstance(m['content'], str):
            m['content'] = json.dumps(m['content'], ensure_ascii=False)
    tools = row.get('tools')
    if tools:
        tools = parse_json(tools)
        if not isinstance(tools, (list, tuple)):
            tools = [tools]
        tools = [wrap_tool(parse_json(t)) for t in tools]
    # _preprocess_tool_call
    i = 0
    while i < len(messages):
        if messages[i]['role'] == 'tool_call':
            j = i
            while j + 1 < len(messages) and messages[j + 1]['role'] == 'tool_call':
                j += 1
            content = '\n'.join(tool_call_text(m['content']) for m in messages[i:j + 1])
            # (from_calls: bookkeeping of this emulation, so that a reply's text joined to its own
            # calls, ms-swift's form of an assistant message with text and calls, is not counted as glue)
            messages[i:j + 1] = [{'role': 'assistant', 'content': content, 'from_calls': True}]
        i += 1
    # _preprocess_standalone_tools: a tool result after a user message joins that message.
    i = 0
    while i < len(messages):
        if messages[i]['role'] != 'tool' or (i > 0 and messages[i - 1]['role'] in ('assistant', 'tool')):
            i += 1
            continue
        if i == 0 or messages[i - 1]['role'] != 'user':
            raise ValueError('A standalone tool message must follow a user message.')
        j = i
        while j + 1 < len(messages) and messages[j + 1]['role'] == 'tool':
            j += 1
        glued.append(f'tool results folded into user message {i - 1}')
        messages[i - 1]['content'] += CHAT_SEP + '<|im_start|>user\n' + '\n'.join(
            f'<tool_response>\n{m["content"]}\n</tool_response>' for m in messages[i:j + 1])
        del messages[i:j + 1]
    # _swift_prepare_inputs
    i = 1
    while i < len(messages):
        pre, cur = messages[i - 1], messages[i]
        if pre['role'] == 'assistant' and cur['role'] == 'tool':
            j = i
            while j + 1 < len(messages) and messages[j + 1]['role'] == 'tool':
                j += 1
            total = '\n'.join(f'<tool_response>\n{m["content"]}\n</tool_response>' for m in messages[i:j + 1])
            messages[i:j + 1] = [{'role': 'tool', 'content': [CHAT_SEP, PROMPT.replace('{{QUERY}}', total)]}]
            i += 1
        elif (pre['role'], cur['role']) in (('assistant', 'assistant'), ('user', 'user')):
            if not cur.get('from_calls'):
                glued.append(f'{cur["role"]} message joined to the one before it with no separator')
            if pre['role'] == 'assistant':
                pre['content'] = (pre['content'] if isinstance(pre['content'], list) else [pre['content']]) + \
                    (cur['content'] if isinstance(cur['content'], list) else [cur['content']])
            else:
                pre['content'] = pre['content'] + cur['content']
            messages.pop(i)
        else:
            i += 1
    # _swift_encode (use_chat_template, training, loss_scale 'default': every assistant turn)
    for m in messages:
        if m['role'] != 'assistant':
            continue
        c = m['content']
        if isinstance(c, list):
            if c and isinstance(c[0], str) and not c[0].startswith(('<think>', NON_THINKING)):
                c[0] = NON_THINKING + c[0]
        elif not c.startswith(('<think>', NON_THINKING)):
            m['content'] = NON_THINKING + c
    if tools:
        system = format_tools(tools, system)
    if messages and messages[0]['role'] == 'assistant':
        messages.insert(0, {'role': 'user', 'content': ''})
    if len(messages) % 2 == 1:
        messages.append({'role': 'assistant', 'content': None})
    parts = [SYSTEM_PREFIX.replace('{{SYSTEM}}', system)] if system else []
    n_round = len(messages) // 2
    for k in range(n_round):
        q, r = messages[2 * k], messages[2 * k + 1]
        assert q['role'] in ('user', 'tool'), f'query_role: "{q["role"]}"'
        assert r['role'] == 'assistant', f'response_role: "{r["role"]}"'
        if q['role'] == 'tool':
            parts += q['content']
        else:
            parts.append(PROMPT.replace('{{QUERY}}', q['content']))
        if r['content'] is not None:
            parts += r['content'] if isinstance(r['content'], list) else [r['content']]
            if k < n_round - 1:
                if messages[2 * (k + 1)]['role'] != 'tool':
                    parts.append(CHAT_SEP)
            else:
                parts.append(SUFFIX)
    return ''.join(parts), glued


def main():
    for path in sys.argv[1:]:
        with open(path, encoding='utf-8') as f:
            for line in f:
                row = json.loads(line)
                try:
                    text, glued = encode(row)
                    out = {'id': row.get('id'), 'deleted': None, 'glued': glued, 'text': text}
                except Exception as e:  # strict=False: the row is deleted
                    out = {'id': row.get('id'), 'deleted': f'{type(e).__name__}: {e}', 'glued': [], 'text': None}
                sys.stdout.write(json.dumps(out, ensure_ascii=False) + '\n')


if __name__ == '__main__':
    main()
