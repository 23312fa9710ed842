import { stringify } from 'yaml';
import { canonicalJson } from '../../util/canonical-json.js';
import { isSkip, messagesColumn, parquetMessages, stringColumn } from '../messages.js';
import type { JsonlSink, ParquetSink, SchemaElement } from '../sinks.js';
import { defineFormat, type ExportContext, type Skip } from '../types.js';

interface Tool {
  type?: string;
  function?: { name?: unknown; description?: unknown; parameters?: Record<string, unknown> };
}

/** The members of `extra_info` hsa writes (see src/output/stages.ts) and their parquet types. */
const EXTRA_INFO: [string, 'int' | 'string'][] = [
  ['index', 'int'],
  ['id', 'string'],
  ['source_id', 'string'],
  ['source_file', 'string'],
  ['source_line', 'int'],
  ['variant', 'string'],
  ['seed', 'string'],
  ['transforms', 'string'],
  ['harness_state', 'string'],
  ['env', 'string'],
];
const EXTRA_KEYS = new Set(EXTRA_INFO.map(([k]) => k));
const ROW_KEYS = new Set(['data_source', 'prompt', 'ability', 'reward_model', 'extra_info']);

const SCHEMA: SchemaElement[] = [
  { name: 'root', num_children: 6 },
  stringColumn('data_source'),
  ...messagesColumn('prompt'),
  stringColumn('ability'),
  // verl picks the agent loop per row by this column: its tool-calling loop.
  stringColumn('agent_name'),
  { name: 'reward_model', repetition_type: 'OPTIONAL', num_children: 2 },
  stringColumn('style'),
  stringColumn('ground_truth'),
  { name: 'extra_info', repetition_type: 'OPTIONAL', num_children: EXTRA_INFO.length + 1 },
  ...EXTRA_INFO.map(([k, t]): SchemaElement => (t === 'int' ? { name: k, type: 'INT64', repetition_type: 'OPTIONAL' } : stringColumn(k))),
  { name: 'tool_selection', repetition_type: 'OPTIONAL', converted_type: 'LIST', num_children: 1 },
  { name: 'list', repetition_type: 'REPEATED', num_children: 1 },
  stringColumn('element'),
];

/**
 * verl's `OpenAIFunctionPropertySchema` keeps only `type`, `description` and `enum` of a property;
 * these keys carry structure the model would then never see (the nested schema of a list of
 * objects, say), so a property holding one is counted and warned about.
 */
const NESTED_KEYS = ['items', 'properties', 'additionalProperties', 'patternProperties', 'prefixItems', 'anyOf', 'oneOf', 'allOf', '$ref'];

/**
 * Rows a group's parquet file buffers: every group's file is open at once (up to one per harness
 * state), so their buffers together stay near 64 × 64 rows.
 */
const GROUP_ROWS = 64;

interface Group {
  index: number;
  dir: string;
  tools: Tool[];
  names: string[];
  parquet: ParquetSink;
  json: JsonlSink;
  nested: number;
}

/**
 * verl agentic RL: rows grouped by their exact tool list (verl offers every tool of the YAML to
 * every row, by name, so one YAML can only serve rows whose tools agree); per group a
 * `tool_config.yaml`, `train.parquet` and `train.json` (JSON lines, which verl's RLHFDataset reads
 * by the `.json` extension).
 */
export default defineFormat({
  id: 'verl-rl',
  description: 'verl RL rows (parquet + JSON lines) and a tool config YAML per group of rows with the same tools',
  stages: ['rl'],
  open(ctx: ExportContext) {
    const groups = new Map<string, Group>();
    const order: Group[] = [];
    let firstNested: string | undefined;
    return {
      add(record) {
        const extraKeys = Object.keys(record).filter((k) => !ROW_KEYS.has(k));
        if (extraKeys.length) return { kind: 'row field not representable', detail: `field ${extraKeys.map((k) => `"${k}"`).join(', ')} has no column` };
        const extra = (record.extra_info ?? {}) as Record<string, unknown>;
        const unknown = Object.keys(extra).filter((k) => !EXTRA_KEYS.has(k));
        if (unknown.length) return { kind: 'extra_info field not representable', detail: `extra_info.${unknown[0]}: no column` };
        let env: { tools?: unknown };
        try {
          env = JSON.parse(String(extra.env));
        } catch {
          return { kind: 'no environment', detail: 'extra_info.env: not JSON text' };
        }
        const tools = Array.isArray(env.tools) ? (env.tools as Tool[]) : [];
        const prompt = parquetMessages(record.prompt);
        if (isSkip(prompt)) return prompt;
        const key = canonicalJson(tools);
        let group = groups.get(key);
        if (!group) {
          const checked = checkTools(tools);
          if (isSkip(checked)) return checked;
          const index = order.length;
          const dir = `group-${String(index).padStart(3, '0')}`;
          group = { index, dir, tools, names: checked.names, nested: checked.nested, parquet: ctx.parquet(`${dir}/train.parquet`, SCHEMA, GROUP_ROWS), json: ctx.jsonl(`${dir}/train.json`) };
          groups.set(key, group);
          order.push(group);
          if (checked.nested) firstNested ??= `${dir}: ${checked.nestedPaths.slice(0, 3).join(', ')}`;
        }
        const reward = (record.reward_model ?? {}) as Record<string, unknown>;
        const row = {
          data_source: record.data_source ?? null,
          prompt,
          ability: record.ability ?? null,
          agent_name: 'tool_agent',
          reward_model: { style: reward.style ?? null, ground_truth: typeof reward.ground_truth === 'string' ? reward.ground_truth : reward.ground_truth === undefined ? null : JSON.stringify(reward.ground_truth) },
          extra_info: {
            ...Object.fromEntries(EXTRA_INFO.map(([k, t]) => [k, extra[k] === undefined ? null : t === 'int' ? BigInt(extra[k] as number) : String(extra[k])])),
            tool_selection: group.names,
          },
        };
        group.parquet.write(row);
        group.json.write({ ...row, extra_info: { ...row.extra_info, index: extra.index ?? null, source_line: extra.source_line ?? null } });
        return undefined;
      },
      async endPart() {},
      async finish() {
        const described = [];
        let nested = 0;
        for (const g of order) {
          ctx.done(await g.parquet.close());
          ctx.done(await g.json.close());
          const yaml = stringify({ tools: g.tools.map((t) => ({ class_name: ctx.toolClass, config: { type: 'native' }, tool_schema: verlSchema(t) })) }, { lineWidth: 0 });
          await ctx.whole(`${g.dir}/tool_config.yaml`, yaml, g.tools.length);
          nested += g.nested;
          described.push({ group: g.dir, tool_config: `${g.dir}/tool_config.yaml`, files: [`${g.dir}/train.parquet`, `${g.dir}/train.json`], tools: g.names, nested_parameters: g.nested });
        }
        const withNested = order.filter((g) => g.nested > 0).length;
        if (nested) {
          ctx.warn(
            `verl-rl: ${nested} tool parameter(s) in ${withNested} of ${order.length} group(s) have nested items/properties (e.g. ${firstNested}); verl's tool schema model keeps only type, description and enum of each property, so that structure is dropped when verl loads the tool_config.yaml (counts per group in the export manifest)`,
          );
        }
        return { groups: described, nested_parameters: nested };
      },
    };
  },
});

/**
 * The tool as verl's pydantic model needs it: `required` and `properties` present (defaults `[]`
 * and `{}`, which mean the same as absent) and `description` a string.
 */
function verlSchema(t: Tool): Tool {
  const p = t.function?.parameters ?? {};
  return {
    type: 'function',
    function: { name: t.function?.name, description: t.function?.description ?? '', parameters: { ...p, properties: p.properties ?? {}, required: p.required ?? [] } },
  };
}

/**
 * Whether verl can load these tools (every property has one string `type`, enums of strings) and
 * how many properties carry detail verl drops (nested `items`, `properties`, combinators…).
 */
function checkTools(tools: Tool[]): { names: string[]; nested: number; nestedPaths: string[] } | Skip {
  const names: string[] = [];
  const nestedPaths: string[] = [];
  const seen = new Set<string>();
  for (const t of tools) {
    const name = t.function?.name;
    if (typeof name !== 'string') return { kind: 'tool schema not representable by verl', detail: 'a tool without a function name' };
    if (seen.has(name)) return { kind: 'tool schema not representable by verl', detail: `tool "${name}" listed twice (verl keys tools by name)` };
    seen.add(name);
    names.push(name);
    const params = t.function?.parameters ?? {};
    if (params.type !== undefined && params.type !== 'object') return { kind: 'tool schema not representable by verl', detail: `${name}: parameters.type must be "object"` };
    for (const [prop, raw] of Object.entries((params.properties ?? {}) as Record<string, Record<string, unknown>>)) {
      if (typeof raw?.type !== 'string') return { kind: 'tool schema not representable by verl', detail: `${name}.${prop}: verl needs one string "type" per property` };
      if (raw.enum !== undefined && !(Array.isArray(raw.enum) && raw.enum.every((e) => typeof e === 'string'))) return { kind: 'tool schema not representable by verl', detail: `${name}.${prop}: verl accepts only string enums` };
      if (NESTED_KEYS.some((k) => k in raw)) nestedPaths.push(`${name}.${prop}`);
    }
  }
  return { names, nested: nestedPaths.length, nestedPaths };
}
