// The stage lines are written from pieces shared between the records of a variant (its messages,
// its provenance, the state's tool list and transforms, escaped once for the RL row's JSON
// strings). Written out, every line must be byte for byte JSON.stringify of the record it stands
// for, however often the pieces were used (text at first, bytes after a few uses), whatever the
// characters (quotes, backslashes, non-ASCII, surrogate pairs, lone surrogates) and options.
import { describe, expect, it } from 'vitest';
import type { RunConfig } from '../src/config/augment-config.js';
import type { Harness, Tool } from '../src/harness/types.js';
import { GENERAL_WRITERS, opdRecords, rlLine, rlRecord, sftRecord, STAGE_SHARED, variantWriters, type GeneralPrompt, type StageInput } from '../src/output/stages.js';
import type { Message, Trajectory } from '../src/trajectory/types.js';
import { headWriter, jsonStringWriter, lineText, recordLine, sharedJson, sharedPiece } from '../src/util/json-out.js';
import { baseHarness } from './helpers/state.js';

const ODD = 'quote " backslash \\ newline \n tab \t 零食 emoji 😀 lone \ud800 end';

const tool = (name: string, description: string, extra: Record<string, unknown> = {}): Tool => ({
  name,
  description,
  parameters: { type: 'object', properties: { q: { type: 'string', description: `the "${name}" query \\ ${ODD}` }, ...extra }, required: ['q'] },
  sourceName: name,
  sourceFormat: 'openai',
});

function state(over: Partial<Harness> = {}): Harness {
  return baseHarness({
    tools: [tool('search', ODD), tool('get_item', 'plain'), tool('lookup', '😀', { n: { type: 'integer', enum: [1, 2] } })],
    hooks: [{ id: 'gate', event: 'stop', checks: [{ type: 'require_tool', tool: 'search', intents: ['buy'] }], action: { type: 'retry', message: `retry ${ODD}` } }] as unknown as Harness['hooks'],
    skillLoader: { tool: 'get_item', argument: 'q' } as Harness['skillLoader'],
    ...over,
  });
}

const call = (id: string, name: string, args: string) => ({ id, type: 'function' as const, function: { name, arguments: args } });

function messages(): Message[] {
  return [
    { role: 'system', content: `system ${ODD}` },
    { role: 'user', content: [{ type: 'text', text: 'parts ' }, { type: 'text', text: ODD }] },
    { role: 'assistant', content: null, tool_calls: [call('c1', 'search', `{"q":${JSON.stringify(ODD)}}`), call('c2', 'get_item', '{"q": not json')] },
    { role: 'tool', tool_call_id: 'c1', content: `[{"title":${JSON.stringify(ODD)}}]` },
    { role: 'tool', tool_call_id: 'c2', content: 'error' },
    { role: 'assistant', content: `reply ${ODD}` },
    { role: 'user', content: 'again' },
    { role: 'assistant', content: 'done' },
  ];
}

function input(over: Partial<StageInput> = {}, meta?: Record<string, unknown>): StageInput {
  const record = { id: 'r1', messages: messages(), ...(meta ? { meta } : {}) } as Trajectory;
  return {
    id: 'r1~v0',
    record,
    state: state(),
    provenance: {
      source_id: 'r1',
      source_file: `dir/${ODD}.jsonl`,
      source_line: 7,
      variant: 0,
      transforms: [{ id: 'tools.rename', version: 1, class: 'exact', params: { renamed: { search: `find ${ODD}` } } }],
      harness: { name: 'inline', version: 'abc', state_hash: 'h', state_slot: 3 },
      seed: 's',
    },
    ordinal: 12,
    ...over,
  };
}

const cfgOf = (over: Partial<RunConfig> = {}): RunConfig =>
  ({ arguments: 'object', toolsFormat: 'array', seed: 's', opd: { turns: 'all', generalRatio: 0.5 }, rl: { dataSource: '', ability: 'agent' }, ...over }) as unknown as RunConfig;

const general: GeneralPrompt[] = [{ id: 'g1', messages: [{ role: 'user', content: `general ${ODD}` }], meta: { topic: ODD } }];

/** Every line of a variant, each next to the JSON of the record it stands for. */
function linesOf(x: StageInput, cfg: RunConfig): [string, string][] {
  const writers = variantWriters(x);
  const sft = sftRecord(x, cfg);
  const out: [string, string][] = [[lineText(recordLine(sft, STAGE_SHARED, writers)), JSON.stringify(sft)]];
  for (const r of opdRecords(x, cfg, general)) {
    const isGeneral = (r.meta as { source?: string }).source === 'general';
    out.push([lineText(recordLine(r, STAGE_SHARED, isGeneral ? GENERAL_WRITERS : writers)), JSON.stringify(r)]);
  }
  out.push([lineText(rlLine(x, cfg)), JSON.stringify(rlRecord(x, cfg))]);
  return out;
}

describe('stage lines', () => {
  const cases: [string, () => StageInput, RunConfig][] = [
    ['arguments as objects', () => input(), cfgOf()],
    ['arguments as strings, tools as a JSON string', () => input(), cfgOf({ arguments: 'string', toolsFormat: 'json-string' })],
    ['source meta with an intent the hook reads', () => input({}, { intent: 'buy', note: ODD }), cfgOf()],
    ['teacher provenance with an undefined reason', () => input({ provenance: { ...input().provenance, teacher: 'replay', fallback: 'rewrite', teacher_reason: undefined, teacher_reason_kind: 'x' } }), cfgOf()],
    ['a kept source with no transforms and no slot', () => input({ id: 'r1~src', provenance: { ...input().provenance, variant: 'src', transforms: [], harness: { name: 'h', version: '1', state_hash: 'h0' } } }), cfgOf()],
    ['a state without tools, hooks or loader', () => input({ state: baseHarness() }), cfgOf()],
  ];
  for (const [name, make, cfg] of cases) {
    it(`are JSON.stringify of their records: ${name}`, () => {
      const x = make();
      // The same variant written again and again: the shared JSON turns from text into bytes.
      for (let round = 0; round < 12; round++) for (const [line, json] of linesOf(x, cfg)) expect(line).toBe(json);
    });
  }

  it('records of other variants under the same state share its pieces and still come out exact', () => {
    const x = input();
    for (let k = 0; k < 10; k++) {
      const y = input({ id: `r1~v${k}`, state: x.state, provenance: { ...x.provenance, variant: k, transforms: x.provenance.transforms } });
      for (const [line, json] of linesOf(y, cfgOf())) expect(line).toBe(json);
    }
  });
});

describe('shared JSON pieces', () => {
  it('a shared value is its JSON as text, then as the same bytes', () => {
    const v = { a: ODD, b: [1, { c: null }] };
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const p = sharedPiece(v);
      seen.add(typeof p);
      expect(typeof p === 'string' ? p : Buffer.from(p).toString('utf8')).toBe(JSON.stringify(v));
    }
    expect([...seen].sort()).toEqual(['object', 'string']);
    expect(sharedJson(v)).toBe(JSON.stringify(v));
  });

  it('headWriter writes a head once and falls back for values that do not start with it', () => {
    const head = { a: 1, skip: undefined, t: [ODD] } as Record<string, unknown>;
    const w = headWriter(head, ['t']);
    const write = (v: unknown) => lineText(recordLine({ meta: v }, [], { meta: w }));
    for (const v of [
      { ...head, turn: 2, extra: { x: ODD } },
      { ...head },
      { ...head, a: 2 }, // same keys, another value: must not be written from the head
      { a: 1, t: head.t }, // the head's members without the undefined one
      { t: head.t, a: 1 }, // another order
      { b: 1 },
      {},
    ]) {
      expect(write(v)).toBe(JSON.stringify({ meta: v }));
    }
    const empty = headWriter({ gone: undefined }, []);
    expect(lineText(recordLine({ meta: { gone: undefined, z: 1 } }, [], { meta: empty }))).toBe('{"meta":{"z":1}}');
  });

  it('jsonStringWriter writes the JSON string of a value, shared members escaped once', () => {
    const tools = [{ name: ODD, list: ['"', '\\'] }];
    const w = jsonStringWriter(['tools']);
    const all = jsonStringWriter('all');
    for (let i = 0; i < 12; i++) {
      for (const v of [{ a: ODD, tools, b: undefined, c: [ODD] }, { tools }, { tools, after: 1 }, { a: 1 }, {}, { tools: null, x: ODD }]) {
        expect(lineText(recordLine({ env: v }, [], { env: w }))).toBe(JSON.stringify({ env: JSON.stringify(v) }));
      }
      expect(lineText(recordLine({ t: tools }, [], { t: all }))).toBe(JSON.stringify({ t: JSON.stringify(tools) }));
    }
  });
});
