import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRunConfig, type RunConfig } from '../src/config/augment-config.js';
import { opdRecords, opdShownMessages, sftRecord, type StageInput } from '../src/output/stages.js';
import type { Message } from '../src/trajectory/types.js';
import { baseHarness } from './helpers/state.js';

// OPD prompt selection (docs/output.md, "OPD prompts"): an output record keeps `opd.prompts` of its
// assistant turns as OPD prompts, chosen from one seeded order of the source's turns so that its
// variants take different turns.

/** A conversation of `turns` user turns, each answered by a call, its result and a reply (2 assistant turns each). */
function conversation(turns: number): Message[] {
  const m: Message[] = [{ role: 'system', content: 'You help with parcels.' }];
  for (let t = 0; t < turns; t++) {
    m.push({ role: 'user', content: `where is parcel ${t}?` });
    m.push({ role: 'assistant', content: '', tool_calls: [{ id: `c${t}`, type: 'function', function: { name: 'track', arguments: `{"n":${t}}` } }] });
    m.push({ role: 'tool', tool_call_id: `c${t}`, content: '{"at":"depot"}' });
    m.push({ role: 'assistant', content: `Parcel ${t} is at the depot.` });
  }
  return m;
}

function input(source: string, variant: number | 'src', messages: Message[]): StageInput {
  const id = `${source}~${variant === 'src' ? 'src' : `v${variant}`}`;
  return {
    id,
    record: { id: source, messages },
    state: baseHarness(),
    provenance: {
      source_id: source,
      source_file: 'f.jsonl',
      source_line: 1,
      variant,
      transforms: [],
      harness: { name: 't', version: '1', state_hash: 'h' },
      seed: 's',
    },
    ordinal: 0,
  };
}

const cfgOf = (opd: Partial<RunConfig['opd']>, seed = '0', variants = 8): RunConfig =>
  ({ seed, variants, arguments: 'object', toolsFormat: 'list', opd: { turns: 'all', prompts: 1, generalRatio: 0, ...opd } }) as unknown as RunConfig;

/** The assistant-turn indexes the OPD prompts of one output stop before. */
const cuts = (x: StageInput, cfg: RunConfig) => opdRecords(x, cfg, []).map((r) => (r.meta as { turn: number }).turn);

const assistantTurns = (m: Message[]) => m.flatMap((msg, i) => (msg.role === 'assistant' && i > 0 ? [i] : []));

describe('OPD prompt selection', () => {
  const msgs = conversation(4); // 8 assistant turns
  const all = assistantTurns(msgs);

  it('`all` keeps every assistant turn (the behaviour before selection)', () => {
    expect(cuts(input('a', 0, msgs), cfgOf({ prompts: 'all' }))).toEqual(all);
  });

  it('by default each output keeps one turn, and the 8 variants of a record cover its 8 turns', () => {
    const cfg = cfgOf({});
    const per = Array.from({ length: 8 }, (_, v) => cuts(input('a', v, msgs), cfg));
    for (const c of per) expect(c).toHaveLength(1);
    expect(new Set(per.flat())).toEqual(new Set(all));
    // The prompt is the conversation up to (not including) the chosen assistant turn.
    const [rec] = opdRecords(input('a', 3, msgs), cfg, []);
    const turn = (rec!.meta as { turn: number }).turn;
    expect((rec!.messages as unknown[]).length).toBe(turn);
    expect(rec!.id).toBe(`a~v3#${turn}`);
  });

  it('N prompts are N distinct turns in conversation order; fewer turns than N keeps them all', () => {
    const cfg = cfgOf({ prompts: 3 });
    for (let v = 0; v < 8; v++) {
      const c = cuts(input('a', v, msgs), cfg);
      expect(c).toHaveLength(3);
      expect(new Set(c).size).toBe(3);
      expect([...c].sort((x, y) => x - y)).toEqual(c);
      for (const j of c) expect(all).toContain(j);
    }
    const short = conversation(1);
    expect(cuts(input('b', 0, short), cfg)).toEqual(assistantTurns(short));
    // Odd shapes: no assistant turn at all, or only one that opens the conversation (no context before it).
    expect(cuts(input('c', 0, [{ role: 'user', content: 'hello?' }]), cfgOf({}))).toEqual([]);
    expect(
      cuts(
        input('d', 0, [
          { role: 'assistant', content: 'Welcome!' },
          { role: 'user', content: 'hi' },
        ]),
        cfgOf({}),
      ),
    ).toEqual([]);
  });

  it('is a function of run seed and source id: the same call gives the same turns, another seed or source reorders them', () => {
    const pick = (seed: string, source: string) => Array.from({ length: 8 }, (_, v) => cuts(input(source, v, msgs), cfgOf({}, seed))[0]);
    expect(pick('0', 'a')).toEqual(pick('0', 'a'));
    const others = ['1', '2', '3', '4'].map((s) => pick(s, 'a').join());
    expect(others.some((o) => o !== pick('0', 'a').join())).toBe(true);
    expect(['b', 'c', 'd', 'e'].map((s) => pick('0', s).join()).some((o) => o !== pick('0', 'a').join())).toBe(true);
  });

  it('a run of assistant messages is one turn: no prompt ends with an assistant message', () => {
    // An API-Bank-shaped record (as xLAM ships it): a reply, then the calls, as two messages.
    const split: Message[] = [
      { role: 'user', content: 'Renew my card 22-7781 please.' },
      { role: 'assistant', content: 'Renewing it now.' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'renew', arguments: '{"card":"22-7781"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '{"until":"2027-01-31"}' },
      { role: 'assistant', content: 'Done.' },
      { role: 'user', content: 'And my fines?' },
      { role: 'assistant', content: 'Let me look.' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c2', type: 'function', function: { name: 'fines', arguments: '{"card":"22-7781"}' } }] },
    ];
    const cfg = cfgOf({ prompts: 'all' });
    expect(cuts(input('s', 0, split), cfg)).toEqual([1, 4, 6]);
    for (let v = 0; v < 8; v++)
      for (const rec of opdRecords(input('s', v, split), cfgOf({}), [])) {
        const m = rec.messages as Message[];
        expect(m[m.length - 1]!.role).not.toBe('assistant');
      }
  });

  it('`turns: first` with any number of prompts keeps only the first assistant turn', () => {
    expect(cuts(input('a', 5, msgs), cfgOf({ turns: 'first', prompts: 3 }))).toEqual([all[0]]);
  });

  it('a kept source gets its own turn after the variants (with 7 variants it takes the 8th of the order)', () => {
    const cfg = cfgOf({}, '0', 7);
    const taken = new Set(Array.from({ length: 7 }, (_, v) => cuts(input('a', v, msgs), cfg)[0]));
    const src = cuts(input('a', 'src', msgs), cfg);
    expect(src).toHaveLength(1);
    expect(taken.has(src[0])).toBe(false);
  });

  it('the messages the writer may share with the SFT line are those of the chosen prompts only', () => {
    const cfg = cfgOf({});
    const x = input('a', 2, msgs);
    const [rec] = opdRecords(x, cfg, []);
    const shown = opdShownMessages(x, cfg);
    const sft = sftRecord(x, cfg).messages as object[];
    expect(shown.size).toBe((rec!.meta as { turn: number }).turn);
    expect(shown.has(sft[shown.size - 1]!)).toBe(true);
    expect(shown.has(sft[shown.size]!)).toBe(false);
  });
});

describe('opd.prompts in the config and --opd-prompts', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hsa-opd-prompts-'));
  const base = { trajectories: ['t.jsonl'], out: 'out' };

  it('defaults to 1; the flag wins over the file', async () => {
    expect((await resolveRunConfig(base)).opd.prompts).toBe(1);
    const file = path.join(dir, 'hsa.yaml');
    writeFileSync(file, 'opd:\n  prompts: all\n');
    expect((await resolveRunConfig({ ...base, config: file })).opd.prompts).toBe('all');
    expect((await resolveRunConfig({ ...base, config: file, opdPrompts: '3' })).opd.prompts).toBe(3);
  });

  it('a bad value names the key and, in a file, its line', async () => {
    await expect(resolveRunConfig({ ...base, opdPrompts: '0' })).rejects.toThrow('--opd-prompts: must be a positive integer or all, not "0"');
    await expect(resolveRunConfig({ ...base, opdPrompts: 'most' })).rejects.toThrow('--opd-prompts');
    const file = path.join(dir, 'bad.yaml');
    writeFileSync(file, 'seed: 1\nopd:\n  prompts: 0\n');
    await expect(resolveRunConfig({ ...base, config: file })).rejects.toThrow(`${file}:3: opd.prompts:`);
  });
});
