import { describe, expect, it } from 'vitest';
import { rejectWriter } from '../src/output/rejects.js';
import type { Output } from '../src/output/shared.js';

const fresh = (): Output => ({ lines: [], counts: {}, reasons: [], teacher: {}, recovery: {}, outputs: 0 });
const at = { file: 'logs.jsonl', line: 7 };

describe('reject(kind, detail)', () => {
  it('counts an input reject as a rejected record and writes its line with where it came from', () => {
    const out = fresh();
    rejectWriter(out, at)('input_malformed', { id: null, reason: 'not JSON', problems: ['not JSON'], line: '{' });
    expect(out.reasons).toEqual(['input_malformed']);
    expect(out.counts).toEqual({ rejected_records: 1 });
    expect(out.lines).toEqual([
      [
        'rejects',
        '{"id":null,"kind":"input","line":"{","problems":["not JSON"],"reason":"not JSON","reason_kind":"input_malformed","source_file":"logs.jsonl","source_line":7}',
      ],
    ]);
  });

  it('counts a variant reject (a failed check, a teacher verdict) as a rejected variant', () => {
    const out = fresh();
    const reject = rejectWriter(out, at);
    reject('check_leak', { id: 'a~1', reason: 'check failed: x', problems: ['x'], transforms: [] });
    reject('teacher_hook_failed', { id: 'a~2', reason: 'gate' });
    expect(out.reasons).toEqual(['check_leak', 'teacher_hook_failed']);
    expect(out.counts).toEqual({ variants_rejected: 2 });
    expect(JSON.parse(out.lines[0]![1] as string)).toMatchObject({
      kind: 'variant',
      reason_kind: 'check_leak',
      id: 'a~1',
      source_file: 'logs.jsonl',
      source_line: 7,
    });
    expect(JSON.parse(out.lines[1]![1] as string)).toMatchObject({ kind: 'variant', reason_kind: 'teacher_hook_failed' });
  });

  it('writes an SFT record without an assistant turn as kind sft, counted by its reason only', () => {
    const out = fresh();
    rejectWriter(out, at)('sft_no_assistant', { id: 'a~src', reason: 'no assistant turn' });
    expect(out.counts).toEqual({});
    expect(out.lines[0]![1]).toBe(
      '{"id":"a~src","kind":"sft","reason":"no assistant turn","reason_kind":"sft_no_assistant","source_file":"logs.jsonl","source_line":7}',
    );
  });

  it('keeps a too-long record in plain JSON, its keys in their order, and counts it over the budget', () => {
    const out = fresh();
    out.tokens = { sft: [], opd: [], tooLong: { sft: 0, opd: 0 } };
    const record = { messages: [], id: 'a~1' };
    rejectWriter(out, at)('too_long_opd', { id: 'a~1', reason: 'long', tokens: 9, max_tokens: 8, record });
    expect(out.tokens.tooLong).toEqual({ sft: 0, opd: 1 });
    expect(out.counts).toEqual({});
    expect(out.lines[0]![1]).toBe(
      '{"kind":"too_long","reason_kind":"too_long_opd","stage":"opd","id":"a~1","source_file":"logs.jsonl","source_line":7,"reason":"long","tokens":9,"max_tokens":8,"record":{"messages":[],"id":"a~1"}}',
    );
  });
});
