"""verl's agent-loop base, re-implemented for the consumer test (verl cannot be installed here).

Read from volcengine/verl at b178a3cd56f58b2d502255daba591e92833930a7,
verl/experimental/agent_loop/agent_loop.py:
- L133-155 `AgentLoopOutput`: prompt_ids, response_ids, response_mask, reward_score, num_turns,
  metrics, extra_fields;
- L192-223 `AgentLoopBase.__init__`: config from the trainer config, the dataset config's
  apply_chat_template_kwargs, `system_prompt` from verl/utils/chat_template.py L9-28 (an empty user
  turn rendered once and twice);
- L247-314 `apply_chat_template`: the tokenizer's template with the tools and the generation prompt,
  tokenised; `remove_system_prompt` cuts `system_prompt` off the front;
- L326-340 and L375-380 the registry: `@register(name)` or the agent-loop config file
  (`actor_rollout_ref.rollout.agent.agent_loop_config_path`: a list of {name, _target_, …});
- L443-445 a row's loop is chosen by its `agent_name`; L476-486 every non-tensor field of the row
  is a keyword argument of `run`; L492-518 the loop is built with `hydra.utils.instantiate` from its
  registry entry (every key but `_target_` becomes a keyword argument) and `run` is awaited.
"""

import asyncio
import importlib

_agent_loop_registry = {}


class DictConfigWrap:
    def __init__(self, config):
        self.config = config


class AgentLoopOutput:
    def __init__(self, prompt_ids, response_ids, response_mask, response_logprobs=None, multi_modal_data=None, reward_score=None, num_turns=0, metrics=None, extra_fields=None, routed_experts=None):
        self.prompt_ids = prompt_ids
        self.response_ids = response_ids
        self.response_mask = response_mask
        self.reward_score = reward_score
        self.num_turns = num_turns
        self.metrics = metrics or {}
        self.extra_fields = extra_fields or {}


def initialize_system_prompt(tokenizer, **kwargs):
    one = tokenizer.apply_chat_template([{"role": "user", "content": ""}], add_generation_prompt=False, tokenize=True)
    two = tokenizer.apply_chat_template([{"role": "user", "content": ""}] * 2, add_generation_prompt=False, tokenize=True)
    return one[: -(len(two) - len(one))]


class AgentLoopBase:
    def __init__(self, trainer_config, server_manager, tokenizer, processor, dataset_cls, dataset_config, **kwargs):
        self.config = trainer_config.config
        self.server_manager = server_manager
        self.tokenizer = tokenizer
        self.processor = processor
        self.dataset_cls = dataset_cls
        self.dataset_config = dataset_config.config
        self.apply_chat_template_kwargs = self.dataset_config.get("apply_chat_template_kwargs", {})
        self.system_prompt = initialize_system_prompt(self.tokenizer, **self.apply_chat_template_kwargs)
        self.loop = asyncio.get_event_loop()

    async def apply_chat_template(self, messages, tools=None, images=None, videos=None, remove_system_prompt=False):
        ids = self.tokenizer.apply_chat_template(messages, tools=tools, add_generation_prompt=True, tokenize=True, **self.apply_chat_template_kwargs)
        if remove_system_prompt:
            ids = ids[len(self.system_prompt):]
        return ids


def register(name):
    def wrap(cls):
        _agent_loop_registry[name] = {"_target_": f"{cls.__module__}.{cls.__qualname__}"}
        return cls

    return wrap


def load_agent_loop_config(entries):
    for e in entries:
        _agent_loop_registry[e["name"]] = e


def instantiate(entry, **kwargs):
    """hydra.utils.instantiate of a registry entry: import `_target_`, call it with the other keys and `kwargs`."""
    module, _, name = entry["_target_"].rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    return cls(**{k: v for k, v in entry.items() if k != "_target_"}, **kwargs)


async def run_agent_loop(config, server_manager, tokenizer, dataset_cls, sampling_params, **row):
    agent_name = row.pop("agent_name")
    assert agent_name in _agent_loop_registry, f"Agent loop {agent_name} not registered, registered agent loops: {list(_agent_loop_registry)}"
    loop = instantiate(_agent_loop_registry[agent_name], trainer_config=DictConfigWrap(config), server_manager=server_manager, tokenizer=tokenizer, processor=None, dataset_cls=dataset_cls, dataset_config=DictConfigWrap(config.data))
    return await loop.run(sampling_params, **row)
