import { describe, expect, it, vi } from 'vitest';
import { restyleSection } from '../src/harness/markdown.js';
import { messageContentJson, promptMessage, renderPrompt, renderRecordPrompt } from '../src/harness/render.js';
import { lineText } from '../src/util/json-out.js';
import type { Harness, Section } from '../src/harness/types.js';
import { checkTrajectory } from '../src/trajectory/check.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { baseHarness } from './helpers/state.js';

// version.ts reads package.json relative to dist/ (the last test produces records in this process).
vi.mock('../src/version.js', () => ({ HSA_VERSION: '0.0.0-test' }));

// renderPrompt keeps renders and template fills per context (by its JSON, from a context's second
// sighting). Each case below asks the kept path a question whose answer differs from the one kept
// before it; every context is a fresh object with equal JSON, as records parsed from a log are.
const text = (id: string, t: string): Section => ({ id, kind: 'text', text: t, placement: 'system' });
const ctx = (room: string, extra: Record<string, unknown> = {}) => JSON.parse(JSON.stringify({ room: { name: room }, ...extra })) as Record<string, unknown>;
/** Render often enough that the context is kept (and a later ask is answered from what was kept). */
const warm = (h: Harness, c: () => unknown) => {
  for (let i = 0; i < 3; i++) renderPrompt(h, c());
};

describe('renders kept per context', () => {
  it('same context, another state: the state decides the text', () => {
    const a = baseHarness({ sections: [text('role', 'A in {{room.name}}')] });
    const b = baseHarness({ sections: [text('role', 'B in {{room.name}}')] });
    warm(a, () => ctx('kc-1'));
    expect(renderPrompt(b, ctx('kc-1')).system).toBe('B in kc-1');
    expect(renderPrompt(a, ctx('kc-1')).system).toBe('A in kc-1');
  });

  it('same state, another context: the context decides the text', () => {
    const a = baseHarness({ sections: [text('role', 'Room {{room.name}}'), text('rules', '- keep it short')] });
    warm(a, () => ctx('kc-2'));
    expect(renderPrompt(a, ctx('kc-3')).system).toBe('Room kc-3\n\n- keep it short');
    // A context differing only deep inside (not in the first level) is another context too.
    warm(a, () => ctx('kc-4', { items: [{ id: 1 }] }));
    const b = baseHarness({ sections: [text('items', '{{#each items}}{{id}};{{/each}}')] });
    warm(b, () => ctx('kc-4', { items: [{ id: 1 }] }));
    expect(renderPrompt(b, ctx('kc-4', { items: [{ id: 2 }] })).system).toBe('2;');
  });

  it('fills are shared by states with the same template, but each state fills with its own defaults', () => {
    const template = 'Host {{host.name}} in {{room.name}}';
    const a = baseHarness({ sections: [text('role', template)], variables: { 'host.name': { default: 'Mia' } } });
    const b = baseHarness({ sections: [text('role', template)], variables: { 'host.name': { default: 'Zoe' } } });
    warm(a, () => ctx('kc-5'));
    expect(renderPrompt(b, ctx('kc-5')).system).toBe('Host Zoe in kc-5');
    expect(renderPrompt(a, ctx('kc-5')).system).toBe('Host Mia in kc-5');
  });

  it('restyles are kept per filled text and style: each state gets its own style, however the renders interleave', () => {
    const section = text('role', '# Room {{room.name}}\n- greet viewers\n- keep it short');
    const style = (heading: 'xml' | 'caps' | 'bracket', listMarker: '-' | '*' | '•') =>
      ({ heading, headingLevel: 2, titleCase: 'upper', listMarker, separator: '\n\n' }) as const;
    const states = [style('xml', '*'), style('caps', '•'), style('bracket', '-'), style('xml', '-')].map((promptStyle) =>
      baseHarness({ sections: [section], promptStyle }),
    );
    const want = (h: Harness, room: string) => restyleSection(`# Room ${room}\n- greet viewers\n- keep it short`, h.promptStyle!);
    // Every state over the same two filled texts, in several orders (each render after the first
    // of a pair is answered from what was kept), and the same style on two states gives one text.
    for (const order of [
      [0, 1, 2, 3],
      [3, 2, 1, 0],
      [1, 3, 0, 2],
    ]) {
      for (const room of ['ks-1', 'ks-2']) for (const i of order) expect(renderPrompt(states[i]!, ctx(room)).system).toBe(want(states[i]!, room));
    }
    expect(new Set(states.map((h) => renderPrompt(h, ctx('ks-1')).system)).size).toBe(4);
    // Each render's content written as JSON pieces (the filled sections' escaping is kept by text) is
    // JSON.stringify of that render's own text, whichever state escaped an equal text first.
    for (const room of ['ks-"q"\n', 'ks-\u00e9\u6625', 'ks-"q"\n']) {
      for (const h of [...states, ...states.reverse()]) {
        const r = renderPrompt(h, ctx(room));
        const pieces = messageContentJson(promptMessage({ role: 'system', content: r.system }, r));
        expect(pieces).toBeDefined();
        expect(lineText(pieces!)).toBe(JSON.stringify(r.system));
        expect(r.system).toBe(want(h, room));
      }
    }
  });

  it('a kept context answers like a new one, many contexts later (and a failing render is never kept)', () => {
    const a = baseHarness({ sections: [text('role', 'Room {{room.name}}, host {{host}}')] });
    warm(a, () => ctx('kc-6', { host: 'h6' }));
    // Enough other contexts to push it out of the kept ones, each seen twice.
    for (let i = 0; i < 600; i++) warm(a, () => ctx(`kc-x${i}`, { host: 'x' }));
    expect(renderPrompt(a, ctx('kc-6', { host: 'h6' })).system).toBe('Room kc-6, host h6');
    for (let i = 0; i < 3; i++) expect(() => renderPrompt(a, ctx('kc-7'))).toThrow('context.host: missing template variable');
    expect(renderPrompt(a, ctx('kc-7', { host: 'h7' })).system).toBe('Room kc-7, host h7');
  });

  it('the input check of a logged prompt holds per record, whatever was kept for an equal context', () => {
    const h = baseHarness({ sections: [text('role', 'Room {{room.name}}')] });
    const rec = (content: string): Trajectory => ({
      id: 'r',
      context: ctx('kc-8'),
      messages: [
        { role: 'system', content },
        { role: 'user', content: 'hi' },
      ],
    });
    for (let i = 0; i < 3; i++) expect(checkTrajectory(rec('Room kc-8'), h, { file: 'f', line: i + 1 })).toEqual([]);
    const bad = checkTrajectory(rec('Room kc-9'), h, { file: 'f', line: 4 });
    expect(bad.map((p) => p.message)).toEqual(['system message differs from the rendered harness: line 1: expected "Room kc-8", got "Room kc-9"']);
    // A record's own text around the rendered prompt (its layout) is its own, not the kept render's.
    const edged = rec('\nRoom kc-8\n');
    expect(checkTrajectory(edged, h, { file: 'f', line: 5 })).toEqual([]);
    expect(renderRecordPrompt(h, edged).system).toBe('\nRoom kc-8\n');
    expect(renderRecordPrompt(h, rec('Room kc-8')).system).toBe('Room kc-8');
  });
});

describe('augmented output with kept renders', () => {
  it('a record gives the same bytes before its context is kept and after (fixture harness, every check on)', async () => {
    const { readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const { REPO } = await import('./helpers/hsa.js');
    const { resolveRunConfig } = await import('../src/config/augment-config.js');
    const { loadRunInputs } = await import('../src/output/setup.js');
    const { produceRecord } = await import('../src/output/produce.js');
    const { statePoolFor } = await import('../src/output/variants.js');
    const { lineText } = await import('../src/util/json-out.js');
    const file = path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl');
    const cfg = await resolveRunConfig({
      harness: path.join(REPO, 'fixtures/live-commerce/harness'),
      trajectories: [file],
      out: 'unused',
      stages: 'sft',
      variants: 2,
      statePool: 4,
      quiet: true,
    });
    const { transforms, words, harness } = await loadRunInputs(cfg);
    const ctx = {
      cfg,
      harness,
      transforms,
      words,
      general: [],
      pool: statePoolFor(cfg, harness, transforms, words),
      teacher: undefined,
      limit: undefined,
      warn: () => undefined,
    };
    const text = readFileSync(file, 'utf8').split('\n')[0]!;
    const bytes = async (t: string, line: number) =>
      (await produceRecord(ctx, { file, line, text: t }, line, 0)).lines.map(([bucket, l]) => `${bucket} ${lineText(l)}`);
    const cold = await bytes(text, 1);
    expect(cold.filter((l) => l.startsWith('sft '))).toHaveLength(2);
    // Other records with the same context (equal JSON, their own objects) make it kept and hit.
    const rec = JSON.parse(text) as { id: string };
    for (let i = 2; i <= 5; i++) await bytes(JSON.stringify({ ...rec, id: `${rec.id}-copy${i}` }), i);
    expect(await bytes(text, 1)).toEqual(cold);
  });
});
