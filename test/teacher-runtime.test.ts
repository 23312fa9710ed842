import { describe, expect, it } from 'vitest';
import type { Harness, Tool } from '../src/harness/types.js';
import { ReplayTeacher } from '../src/teacher/replay.js';
import type { EpisodeOptions } from '../src/episode/options.js';
import { turnRoundLimit } from '../src/episode/replay-env.js';
import { runEpisode } from '../src/teacher/runtime.js';
import type { Teacher, TeacherReply, TeacherRequest, TeacherStep } from '../src/teacher/types.js';
import type { Message, ToolCall, Trajectory } from '../src/trajectory/types.js';
import { emptyPlan } from '../src/transform/plan.js';
import { baseHarness } from './helpers/state.js';

// The episode runtime against scripted teachers: per-call fallback, trajectory-level recovery,
// the turn limit derived from the source, and sources that end with an unanswered user line.

const tool = (name: string, required: string[]): Tool => ({
  name,
  description: `${name}.`,
  parameters: { type: 'object', properties: Object.fromEntries(required.map((k) => [k, { type: 'string' }])), required, additionalProperties: false },
  sourceName: name,
  sourceFormat: 'openai',
});
const harness: Harness = baseHarness({ tools: [tool('get_item', ['item_id']), tool('search', ['q'])] });
const call = (id: string, name: string, args: string): ToolCall => ({ id, type: 'function', function: { name, arguments: args } });
const reply = (content: string | null, calls: ToolCall[] = []): TeacherReply => ({
  content,
  toolCalls: calls,
  finishReason: calls.length ? 'tool_calls' : 'stop',
  usage: { prompt: 1, completion: 1 },
  cached: false,
  raw: { content, calls },
});
const opts = (over: Partial<EpisodeOptions> = {}): EpisodeOptions => ({
  consistency: 'exact',
  maxRoundsPerTurn: 'auto',
  maxCallRetries: 3,
  maxAttempts: 3,
  ...over,
});

/** One turn: the user asks, the model makes one call, gets its result, then answers. */
const oneCallTurn = (id: string, user: string, c: ToolCall, result: string, answer: string): Trajectory => ({
  id,
  messages: [
    { role: 'user', content: user },
    { role: 'assistant', content: '', tool_calls: [c] },
    { role: 'tool', tool_call_id: c.id, content: result },
    { role: 'assistant', content: answer },
  ],
});
const source = oneCallTurn('s1', 'price of i-1?', call('c1', 'get_item', '{"item_id":"i-1"}'), '{"price":9}', 'It is 9.');

/** A teacher answering from a script of (request, step) → reply; it keeps every request and step. */
function scripted(answer: (req: TeacherRequest, step: TeacherStep, n: number) => TeacherReply): Teacher & { requests: TeacherRequest[]; steps: TeacherStep[] } {
  const requests: TeacherRequest[] = [];
  const steps: TeacherStep[] = [];
  return {
    kind: 'openai',
    requests,
    steps,
    async complete(req, step) {
      requests.push({ ...req, messages: [...req.messages] });
      steps.push(step);
      return answer(req, step, requests.length - 1);
    },
  };
}

/** The good answer at a step of `source`: the lookup first, then the reply. */
const good = (req: TeacherRequest): TeacherReply =>
  req.messages.some((m) => m.role === 'tool' && m.content === '{"price":9}') ? reply('It is 9.') : reply('', [call('c1', 'get_item', '{"item_id":"i-1"}')]);

describe('per-call fallback', () => {
  it.each([
    ['a missing required argument', call('c1', 'get_item', '{}'), 'teacher_invalid_call', 'error: missing required argument "item_id" (tool "get_item")'],
    ['arguments that are not JSON', call('c1', 'get_item', '{"item_id":'), 'teacher_invalid_call', 'error: arguments are not valid JSON ('],
    [
      'a tool that does not exist',
      call('c1', 'get_items', '{"item_id":"i-1"}'),
      'teacher_unknown_tool',
      'error: tool "get_items" does not exist; available tools: get_item, search',
    ],
    ['a wrong argument', call('c1', 'get_item', '{"item_id":"i-1","id":"x"}'), 'teacher_invalid_call', 'error: unknown argument "id" (tool "get_item")'],
  ])('%s is answered with a tool error, asked again, and left out of the accepted trajectory', async (_what, bad, kind, error) => {
    const teacher = scripted((req, step) => (step.retry === 0 && !req.messages.some((m) => m.role === 'tool') ? reply('', [bad]) : good(req)));
    const r = await runEpisode(source, harness, harness, emptyPlan(), 's1~v0', teacher, opts());
    expect(r.status, r.reason).toBe('accepted');
    // The retry carried the failed call and its error, at the same step.
    const retry = teacher.requests[1]!.messages;
    // Arguments that are not JSON go back as {} (servers parse the history), the error quotes them.
    const notJson = bad.function.arguments === '{"item_id":';
    expect(retry.at(-2)).toEqual({ role: 'assistant', content: '', tool_calls: [notJson ? { ...bad, function: { ...bad.function, arguments: '{}' } } : bad] });
    if (notJson) expect(String(retry.at(-1)!.content)).toMatch(/; you sent: \{"item_id":$/);
    expect(retry.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'c1' });
    expect(String(retry.at(-1)!.content).startsWith(error)).toBe(true);
    expect(teacher.steps[1]).toMatchObject({ turn: 0, attempt: 0, retry: 1, sample: 0 });
    // Neither the accepted trajectory nor any later request shows the failed exchange.
    expect(r.trajectory.messages).toEqual(source.messages);
    expect(teacher.requests[2]!.messages).toEqual(source.messages.slice(0, 3));
    expect(r.recovery).toEqual({ callRetries: { [kind]: 1 }, attempts: 1, failures: [] });
  });

  it('a call to a renamed-away tool is an old name; every call of the message is answered', async () => {
    const to = baseHarness({ tools: [tool('fetch_item', ['item_id']), tool('search', ['q'])] });
    const plan = { ...emptyPlan(), tools: { get_item: 'fetch_item' } };
    const teacher = scripted((req, step) =>
      step.retry === 0 && !req.messages.some((m) => m.role === 'tool')
        ? reply('', [call('a', 'search', '{"q":"x"}'), call('b', 'get_item', '{"item_id":"i-1"}')])
        : req.messages.some((m) => m.role === 'tool' && m.content === '{"price":9}')
          ? reply('It is 9.')
          : reply('', [call('c1', 'fetch_item', '{"item_id":"i-1"}')]),
    );
    const r = await runEpisode(source, harness, to, plan, 's1~v0', teacher, opts());
    expect(r.status, r.reason).toBe('accepted');
    const retry = teacher.requests[1]!.messages.slice(-2);
    expect(retry).toEqual([
      { role: 'tool', tool_call_id: 'a', content: 'error: not run, because another call in the same message was invalid; send the calls again' },
      { role: 'tool', tool_call_id: 'b', content: 'error: tool "get_item" does not exist; available tools: fetch_item, search' },
    ]);
    expect(r.recovery.callRetries).toEqual({ teacher_old_name: 1 });
    expect(JSON.stringify(r.trajectory.messages)).not.toContain('get_item');
  });

  it('a skill loaded by its pre-rename id is an old name (the recorded load would otherwise match)', async () => {
    const skill = (id: string) => ({ id, description: `${id}.`, kind: 'reply' as const, tools: [], body: `Body of ${id}.`, extra: {} });
    const loader = { tool: 'load_skill', argument: 'name' };
    const from = baseHarness({ tools: [tool('load_skill', ['name'])], skills: [skill('greet')], skillLoader: loader });
    const to = baseHarness({ tools: [tool('load_skill', ['name'])], skills: [skill('welcome')], skillLoader: loader });
    const plan = { ...emptyPlan(), skills: { greet: 'welcome' } };
    const src = oneCallTurn('s2', 'hi', call('k1', 'load_skill', '{"name":"greet"}'), 'Body of greet.', 'Hello!');
    const teacher = scripted((req, step) =>
      req.messages.some((m) => m.role === 'tool' && m.content === 'Body of welcome.')
        ? reply('Hello!')
        : reply('', [call('k1', 'load_skill', step.retry === 0 ? '{"name":"greet"}' : '{"name":"welcome"}')]),
    );
    const r = await runEpisode(src, from, to, plan, 's2~v0', teacher, opts());
    expect(r.status, r.reason).toBe('accepted');
    expect(teacher.requests[1]!.messages.at(-1)).toMatchObject({ role: 'tool', content: 'error: skill "greet" does not exist; available skills: welcome' });
    expect(r.recovery.callRetries).toEqual({ teacher_old_name: 1 });
    expect(JSON.stringify(r.trajectory.messages)).not.toContain('greet');
  });

  it('when the retries run out the attempt fails with the kind; the next sample is tried; the kinds are fixed', async () => {
    const always = scripted(() => reply('', [call('c1', 'get_item', '{}')]));
    const r = await runEpisode(source, harness, harness, emptyPlan(), 's1~v0', always, opts({ maxCallRetries: 2, maxAttempts: 2 }));
    expect(r.status).toBe('rejected');
    expect(r.kind).toBe('teacher_invalid_call');
    expect(r.reason).toBe('turn 1: invalid call of get_item: missing required argument "item_id" (after 2 retries)');
    expect(always.requests).toHaveLength(6); // 2 attempts × (1 + 2 retries)
    expect(always.steps.map((s) => s.sample)).toEqual([0, 0, 0, 1, 1, 1]);
    expect(r.recovery).toMatchObject({ callRetries: { teacher_invalid_call: 4 }, attempts: 2 });
    expect(r.recovery.failures.map((f) => f.kind)).toEqual(['teacher_invalid_call', 'teacher_invalid_call']);
    // The rejected trajectory shows what was tried.
    expect(r.trajectory.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringMatching(/^error: missing required argument/) });
  });

  it('trajectory-level recovery: a divergent first sample, an accepted second one', async () => {
    const teacher = scripted((req, step) => ((step.sample ?? 0) === 0 ? reply('', [call('c1', 'get_item', '{"item_id":"i-2"}')]) : good(req)));
    const r = await runEpisode(source, harness, harness, emptyPlan(), 's1~v0', teacher, opts());
    expect(r.status, r.reason).toBe('accepted');
    expect(r.trajectory.messages).toEqual(source.messages);
    expect(r.recovery).toEqual({
      callRetries: {},
      attempts: 2,
      failures: [{ kind: 'teacher_divergent_call', reason: 'divergent call: get_item({"item_id":"i-2"}) matches no recorded call' }],
    });
    expect(r.stats.answers).toBe(3);
  });

  it('the replay teacher (the same answer on every sample) gets one attempt', async () => {
    const replay = new ReplayTeacher();
    const wrong: Trajectory = {
      ...source,
      messages: source.messages.map((m) => (m.role === 'assistant' && m.tool_calls ? { ...m, tool_calls: [call('c1', 'get_item', '{"item_id":"i-9"}')] } : m)),
    };
    replay.setReference('s1~v0', wrong, 'hook:');
    const r = await runEpisode(source, harness, harness, emptyPlan(), 's1~v0', replay, opts());
    expect(r.kind).toBe('teacher_divergent_call');
    expect(r.recovery.attempts).toBe(1);
  });
});

describe('turns', () => {
  it('a final user message the source never answered is not sent; the episode ends at the last answered turn', async () => {
    const stop: Trajectory = { ...source, messages: [...source.messages, { role: 'user', content: '###STOP###' }] };
    const teacher = scripted((req) => good(req));
    const r = await runEpisode(stop, harness, harness, emptyPlan(), 's1~v0', teacher, opts());
    expect(r.status, r.reason).toBe('accepted');
    expect(teacher.requests.every((q) => !JSON.stringify(q.messages).includes('###STOP###'))).toBe(true);
    expect(r.trajectory.messages).toEqual(source.messages);
  });

  it('a source that answers no turn at all has its turns sent (the teacher writes the answers)', async () => {
    const prompts: Trajectory = { id: 'p', messages: [{ role: 'user', content: 'hello?' }] };
    const teacher = scripted(() => reply('Hi!'));
    const r = await runEpisode(prompts, harness, harness, emptyPlan(), 'p~v0', teacher, opts());
    expect(r.status, r.reason).toBe('accepted');
    expect(r.trajectory.messages).toEqual([
      { role: 'user', content: 'hello?' },
      { role: 'assistant', content: 'Hi!' },
    ]);
  });

  it('max_rounds auto follows the source turn: 20 tool rounds pass, a fixed 12 rejects them', async () => {
    const messages: Message[] = [{ role: 'user', content: 'search everything' }];
    for (let i = 0; i < 20; i++)
      messages.push(
        { role: 'assistant', content: '', tool_calls: [call(`c${i}`, 'search', JSON.stringify({ q: `q${i}` }))] },
        { role: 'tool', tool_call_id: `c${i}`, content: `r${i}` },
      );
    messages.push({ role: 'assistant', content: 'Done.' });
    const long: Trajectory = { id: 'long', messages };
    const run = (maxRoundsPerTurn: EpisodeOptions['maxRoundsPerTurn']) => {
      const replay = new ReplayTeacher();
      replay.setReference('long~v0', long, 'hook:');
      return runEpisode(long, harness, harness, emptyPlan(), 'long~v0', replay, opts({ maxRoundsPerTurn }));
    };
    const auto = await run('auto');
    expect(auto.status, auto.reason).toBe('accepted');
    expect(auto.trajectory.messages).toEqual(messages);
    const fixed = await run(12);
    expect(fixed.kind).toBe('teacher_max_rounds');
    expect(fixed.reason).toBe('turn 1: no final reply after 12 model calls (max_rounds 12)');
    expect(turnRoundLimit(21, harness)).toBe(21 + 11);
    expect(turnRoundLimit(2, harness)).toBe(12);
  });
});
