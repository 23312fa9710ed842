"""verl's tool-call parsers, re-implemented for the consumer test: the hermes one.

Read from volcengine/verl at b178a3cd56f58b2d502255daba591e92833930a7,
verl/experimental/agent_loop/tool_parser.py L29-106: the response ids are decoded (special tokens
kept); without both `<tool_call>` and `</tool_call>` there are no calls; each
`<tool_call>(.*?)</tool_call>` (DOTALL) is read as JSON `{"name", "arguments"}` and the arguments
written back with `json.dumps(arguments, ensure_ascii=False)` (one that does not parse is logged and
skipped); the content is the text with the calls removed.
"""

import json
import re


class FunctionCall:
    def __init__(self, name, arguments):
        self.name = name
        self.arguments = arguments


class ToolParser:
    _registry = {}

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer

    @classmethod
    def get_tool_parser(cls, name, tokenizer):
        if name not in cls._registry:
            raise ValueError(f"Unknown tool parser: {name}")
        return cls._registry[name](tokenizer)

    @classmethod
    def register(cls, name):
        def wrap(sub):
            cls._registry[name] = sub
            return sub

        return wrap


@ToolParser.register("hermes")
class HermesToolParser(ToolParser):
    CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)

    async def extract_tool_calls(self, responses_ids):
        text = self.tokenizer.decode(responses_ids)
        if "<tool_call>" not in text or "</tool_call>" not in text:
            return text, []
        calls = []
        for match in self.CALL.findall(text):
            try:
                c = json.loads(match)
                calls.append(FunctionCall(name=c["name"], arguments=json.dumps(c["arguments"], ensure_ascii=False)))
            except Exception:
                pass
        return self.CALL.sub("", text), calls
