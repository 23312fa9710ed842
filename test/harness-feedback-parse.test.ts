import { describe, expect, it } from 'vitest';
import { parseFeedback } from '../src/harness/feedback.js';

// parseFeedback skips its regex for texts that do not start and end with the template's literal
// text: these cases pin that the skip never turns a match into a miss or a miss into a match.
describe('parseFeedback', () => {
  it('matches texts with the literal head and tail and gives the slots back', () => {
    expect(parseFeedback('[hook] {{reason}} (retry)', '[hook] too long (retry)')).toEqual({ reason: 'too long' });
    expect(parseFeedback('{{a}}-{{b}}', 'x-y-z')).toEqual({ a: 'x', b: 'y-z' });
    expect(parseFeedback('<{{a}}>{{a}}</{{a}}>', '<p>p</p>')).toEqual({ a: 'p' });
    expect(parseFeedback('head {{x}}', 'head ')).toEqual({ x: '' });
  });

  it('misses texts without the head or the tail, and texts shorter than both', () => {
    expect(parseFeedback('[hook] {{reason}} (retry)', 'hook] too long (retry)')).toBeNull();
    expect(parseFeedback('[hook] {{reason}} (retry)', '[hook] too long (retry) ')).toBeNull();
    // Head and tail overlap in the text: too short to hold both.
    expect(parseFeedback('ab{{x}}ba', 'aba')).toBeNull();
    expect(parseFeedback('ab{{x}}ba', 'abba')).toEqual({ x: '' });
    expect(parseFeedback('<{{a}}>{{a}}</{{a}}>', '<p>q</p>')).toBeNull();
  });

  it('a template without slots matches only itself', () => {
    expect(parseFeedback('Blocked by policy.', 'Blocked by policy.')).toEqual({});
    expect(parseFeedback('Blocked by policy.', 'Blocked by policy. ')).toBeNull();
    expect(parseFeedback('Blocked by policy.', 'Blocked')).toBeNull();
  });
});
