import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseFeedback, renderFeedback } from '../../src/harness/feedback.js';
import { loadHarness } from '../../src/harness/load.js';
import channel from '../../transforms/hooks/channel.js';
import feedbackStyle, { fillFeedbackFrame, slotsOf, splitFeedback, usableTemplate } from '../../transforms/hooks/feedback-style.js';
import order from '../../transforms/hooks/order.js';
import rename, { retag } from '../../transforms/hooks/rename.js';
import toggle from '../../transforms/hooks/toggle.js';
import { builtinWords } from '../../src/words/selection.js';
import { emptyPlan } from '../../src/transform/plan.js';
import { createRng } from '../../src/transform/rng.js';
import { REPO } from '../helpers/hsa.js';
import { family, hook, harness, stopGate, stopLoop, whitelist, schemaValid, allHooks, run, problems } from '../helpers/hook-transforms.js';

describe('every hooks transform', () => {
  it.each(Object.values(family))('$id: id, family, strict options with a described p', (def) => {
    expect(def.id.startsWith('hooks.')).toBe(true);
    expect(def.family).toBe('hooks');
    expect((def.options.parse({}) as { p: number }).p).toBeGreaterThanOrEqual(0);
    expect(def.options.safeParse({ p: -0.1 }).success).toBe(false);
    expect(def.options.safeParse({ nope: 1 }).success).toBe(false);
    const o = def.options as unknown as {
      shape?: Record<string, { description?: string }>;
      def?: { in?: { shape: Record<string, { description?: string }> } };
    };
    const shape = o.shape ?? o.def?.in?.shape;
    expect(shape).toBeDefined();
    for (const [key, opt] of Object.entries(shape!)) expect(opt.description, `${def.id}.${key}`).toBeTruthy();
  });

  it.each(Object.values(family))('$id: never mutates its input and is deterministic', (def) => {
    const state = allHooks();
    const before = structuredClone(state);
    for (let seed = 0; seed < 20; seed++) expect(run(def, state, { p: 1 }, seed)).toEqual(run(def, state, { p: 1 }, seed));
    expect(state).toEqual(before);
  });

  it.each(Object.values(family).filter((d) => d !== toggle))('$id: nothing to do without hooks', (def) => {
    expect(run(def, harness(), { p: 1 })).toBeNull();
  });
});

describe('hooks.rename', () => {
  it('renames hooks with valid fresh ids; feedback tags and prompt mentions follow', () => {
    const state = allHooks();
    state.sections[0]!.text += '\nThe `stop_gate` hook checks replies.';
    for (let seed = 0; seed < 100; seed++) {
      const r = run(rename, state, { p: 1, intensity: 1 }, seed)!;
      const map = r.plan!.hooks!;
      expect(r.params).toEqual({ renamed: map });
      expect(Object.keys(map).sort()).toEqual(['refusal_whitelist', 'schema_valid', 'stop_gate', 'stop_loop']);
      expect(new Set(Object.values(map)).size).toBe(4);
      for (const [old, next] of Object.entries(map)) {
        expect(next).toMatch(/^[A-Za-z][A-Za-z0-9_.-]*$/);
        expect(state.hooks.map((h) => h.id)).not.toContain(next);
        const h = r.state.hooks.find((k) => k.id === next)!;
        expect(h.feedback.startsWith(`[${next}] `)).toBe(true);
        expect(h.feedback).not.toMatch(new RegExp(`(?<![\\w-])${old}(?![\\w-])`));
      }
      expect(r.state.sections[0]!.text).toContain(`\`${map.stop_gate}\``);
      expect(problems(r.state)).toEqual([]);
    }
  });

  it.each([
    ['[audit] the audit failed', 'audit', 'check', '[check] the audit failed'],
    ['<audit>the audit failed</audit>', 'audit', 'check', '<check>the audit failed</check>'],
    ['audit: the audit failed (audit)', 'audit', 'check', 'check: the audit failed (check)'],
    ['Check "audit" failed. audit again', 'audit', 'check', 'Check "check" failed. audit again'],
    ['[audit) mismatched brackets', 'audit', 'check', '[audit) mismatched brackets'],
    ['{"hook":"audit","message":"x"}', 'audit', 'check', '{"hook":"check","message":"x"}'],
  ])('retag(%j)', (template, oldId, newId, expected) => expect(retag(template, oldId, newId)).toBe(expected));

  it('a plain-word id is retagged in its own feedback, its prose left alone', () => {
    const state = harness([hook('audit', { feedback: '[audit] The audit found {{chars}} characters (max {{max_chars}}).' })]);
    const r = run(rename, state, { p: 1, styles: ['opaque'] }, 4)!;
    const next = r.plan!.hooks!.audit!;
    expect(r.state.hooks[0]!.feedback).toBe(`[${next}] The audit found {{chars}} characters (max {{max_chars}}).`);
  });

  it('returns null when every name is taken', () => {
    expect(run(rename, allHooks(), { p: 1 }, 1, () => true)).toBeNull();
  });
});

describe('hooks.feedback-style', () => {
  it.each([
    ['[stop_gate] Too long.', 'stop_gate', '[{tag}] {reason}', 'stop_gate', 'Too long.'],
    ['<stop_gate>Too long.</stop_gate>', 'stop_gate', '<{tag}>{reason}</{tag}>', 'stop_gate', 'Too long.'],
    ['stop_gate: Too long.', 'stop_gate', '{tag}: {reason}', 'stop_gate', 'Too long.'],
    ['{"hook":"stop_gate","message":"Say \\"hi\\"."}', 'stop_gate', '{"hook":"{tag}","message":"{reason}"}', 'stop_gate', 'Say "hi".'],
    ['[{{hook}}] Too long.', 'stop_gate', '[{tag}] {reason}', '{{hook}}', 'Too long.'],
    ['Too long, no tag.', 'stop_gate', null, 'stop_gate', 'Too long, no tag.'],
    ['[other] Not my tag.', 'stop_gate', null, 'stop_gate', '[other] Not my tag.'],
  ])('splitFeedback(%j)', (template, id, frame, tag, reason) => {
    expect(splitFeedback(template, id, builtinWords.feedbackFrames)).toEqual({ frame, tag, reason });
  });

  it('fills frames, escaping the reason inside a JSON frame only', () => {
    expect(fillFeedbackFrame('<{tag}>{reason}</{tag}>', 'g', 'Say "$1" {{x}}.')).toBe('<g>Say "$1" {{x}}.</g>');
    expect(fillFeedbackFrame('{"hook":"{tag}","message":"{reason}"}', 'g', 'Say "hi" {{x}}.')).toBe('{"hook":"g","message":"Say \\"hi\\" {{x}}."}');
  });

  it('every frame round-trips every live-commerce hook: slots intact, parseFeedback(renderFeedback(t)) gives the variables back', async () => {
    const { harness: lc } = await loadHarness(path.join(REPO, 'fixtures/live-commerce/harness'));
    expect(lc!.hooks.length).toBe(4);
    for (const h of lc!.hooks) {
      const { reason, tag } = splitFeedback(h.feedback, h.id, builtinWords.feedbackFrames);
      expect(tag).toBe(h.id);
      expect(reason.startsWith('[')).toBe(false);
      for (const frame of builtinWords.feedbackFrames) {
        const t = fillFeedbackFrame(frame, tag, reason);
        expect(slotsOf(t)).toEqual(slotsOf(h.feedback));
        const vars: Record<string, unknown> = {
          chars: 96,
          max_chars: 80,
          rounds: 5,
          max_tool_rounds: 4,
          tool: 'refuse_request',
          reason: "must have required property 'item_id'",
        };
        const text = renderFeedback(t, vars);
        const back = parseFeedback(t, text)!;
        expect(back, `${h.id} in ${frame}`).not.toBeNull();
        for (const name of slotsOf(t)) expect(back[name]).toBe(String(vars[name]));
        // The old template's message re-renders into the new one and back.
        const old = renderFeedback(h.feedback, vars);
        expect(renderFeedback(h.feedback, parseFeedback(t, renderFeedback(t, parseFeedback(h.feedback, old)!))!)).toBe(old);
      }
    }
  });

  it('never draws a frame whose own words spell a name the plan renamed away (JSON keys beside a renamed `message`)', () => {
    const state = allHooks();
    const plan = { ...emptyPlan(), args: { set_reminder: [{ op: 'rename' as const, paths: { message: 'msg', remind_at: 'remindAt' } }] } };
    let json = 0;
    for (let seed = 0; seed < 60; seed++) {
      const r = feedbackStyle.apply(state, {
        options: feedbackStyle.options.parse({ p: 1, intensity: 1 }),
        rng: createRng('test', seed, feedbackStyle.id),
        words: builtinWords,
        source: state,
        plan,
        isTaken: () => false,
      });
      for (const f of Object.values((r?.params.frames ?? {}) as Record<string, string>)) expect(f).not.toMatch(/\bmessage\b/);
      // Without the rename the JSON frame (`"message":`) is drawn: the test sees the frame it excludes.
      const free = run(feedbackStyle, state, { p: 1, intensity: 1 }, seed)!;
      json += Object.values(free.params.frames as Record<string, string>).filter((f) => f.includes('"message"')).length;
    }
    expect(json).toBeGreaterThan(0);
  });

  it('restyles a share of hooks with a different frame, same reason and slots', () => {
    const state = allHooks();
    const seen = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const r = run(feedbackStyle, state, { p: 1, intensity: 1 }, seed)!;
      const frames = r.params.frames as Record<string, string>;
      expect(Object.keys(frames).sort()).toEqual(['refusal_whitelist', 'schema_valid', 'stop_gate', 'stop_loop']);
      for (const h of r.state.hooks) {
        const old = state.hooks.find((k) => k.id === h.id)!;
        const frame = frames[h.id]!;
        seen.add(frame);
        expect(frame).not.toBe('[{tag}] {reason}');
        expect(h.feedback).toBe(fillFeedbackFrame(frame, h.id, splitFeedback(old.feedback, h.id, builtinWords.feedbackFrames).reason));
        expect(slotsOf(h.feedback)).toEqual(slotsOf(old.feedback));
        expect({ ...h, feedback: old.feedback }).toEqual(old);
      }
      expect(r.plan).toBeUndefined();
      expect(problems(r.state)).toEqual([]);
    }
    expect(seen.size).toBe(builtinWords.feedbackFrames.length - 1);
  });

  it('restyles an already restyled template again (its frame is recognised, the tag not doubled)', () => {
    const state = harness([hook('stop_gate', { feedback: '<stop_gate>Too long: {{chars}}.</stop_gate>' })]);
    for (let seed = 0; seed < 30; seed++) {
      const fb = run(feedbackStyle, state, { p: 1 }, seed)!.state.hooks[0]!.feedback;
      expect(fb.match(/stop_gate/g)!.length).toBeLessThanOrEqual(2);
      expect(fb).toContain('Too long: {{chars}}.');
      expect(fb).not.toContain('<stop_gate>');
    }
  });

  it("refuses templates another hook's feedback could be mistaken for", () => {
    const a = hook('a', { feedback: '[a] {{tool}} failed.' });
    expect(usableTemplate('{{tool}} failed.', a.feedback, 'a', [hook('b', { feedback: '[b] {{tool}} failed.' })])).toBe(false);
    expect(usableTemplate('(a) {{tool}} failed.', a.feedback, 'a', [hook('b', { feedback: '[b] {{tool}} failed.' })])).toBe(true);
    expect(usableTemplate('(a) failed.', a.feedback, 'a', [])).toBe(false); // lost a slot
    expect(usableTemplate(a.feedback, a.feedback, 'a', [])).toBe(false); // no change
  });
});

describe('hooks.channel', () => {
  it.each([
    ['stop user → system', [hook('g')], { g: 'system' }],
    ['pre_inference system → user', [stopLoop], { stop_loop: 'user' }],
    ['tool hooks and the tool channel never move', [whitelist, schemaValid], null],
    ['a stop hook on the tool channel stays', [hook('g', { channel: 'tool' })], null],
    ['all eligible at intensity 1', [stopGate, stopLoop, whitelist], { stop_gate: 'system', stop_loop: 'user' }],
  ] as const)('%s', (_, hooks, moved) => {
    const state = harness([...hooks]);
    const r = run(channel, state, { p: 1, intensity: 1 });
    if (moved === null) return void expect(r).toBeNull();
    expect(r!.params).toEqual({ moved });
    for (const h of r!.state.hooks) {
      const old = state.hooks.find((k) => k.id === h.id)!;
      expect(h.channel).toBe((moved as Record<string, string>)[h.id] ?? old.channel);
      expect({ ...h, channel: old.channel }).toEqual(old);
    }
  });

  it('intensity picks a share (at least one)', () => {
    const state = harness([hook('a_1'), hook('b_2'), hook('c_3'), hook('d_4')]);
    expect(Object.keys(run(channel, state, { p: 1, intensity: 0 })!.params.moved as object)).toHaveLength(1);
    expect(Object.keys(run(channel, state, { p: 1, intensity: 0.5 })!.params.moved as object)).toHaveLength(2);
  });
});

describe('hooks.order', () => {
  it('shuffles within an event; other events keep their places', () => {
    const state = harness([hook('s1'), whitelist, hook('s2'), stopLoop, hook('s3'), schemaValid]);
    const orders = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const r = run(order, state, { p: 1 }, seed)!;
      const ids = r.state.hooks.map((h) => h.id);
      expect(ids).not.toEqual(state.hooks.map((h) => h.id));
      expect(r.state.hooks.map((h) => h.event)).toEqual(state.hooks.map((h) => h.event));
      expect([...ids].sort()).toEqual(state.hooks.map((h) => h.id).sort());
      expect(ids[3]).toBe('stop_loop');
      expect(r.params).toEqual({
        order: {
          stop: ids.filter((i) => i.startsWith('s') && i !== 'stop_loop' && i !== 'schema_valid'),
          pre_tool_use: ids.filter((i) => i === 'refusal_whitelist' || i === 'schema_valid'),
        },
      });
      for (const h of r.state.hooks) expect(h).toEqual(state.hooks.find((k) => k.id === h.id));
      orders.add(ids.join());
    }
    expect(orders.size).toBe(3 * 2 * 2 - 1);
  });

  it('returns null when no event has two hooks', () => {
    expect(run(order, harness([stopGate, stopLoop, whitelist]), { p: 1 })).toBeNull();
  });
});
