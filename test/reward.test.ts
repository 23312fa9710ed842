import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRewardConfig } from '../src/episode/reward-config.js';
import { removeTempDirs, tempDir } from './helpers/tmp.js';
import { Episode } from '../src/episode/episode.js';
import { readPolicyMessage } from '../src/episode/message.js';
import { DEFAULT_REWARD_CONFIG, reasoningQ, replyF1, scoreEpisode, type RewardConfig } from '../src/episode/reward.js';
import { parseRow } from '../src/episode/row.js';
import { estimateCounter, splitReasoning, tokenCounter } from '../src/episode/tokens.js';

// A small non-commerce row (a clinic's booking assistant, Chinese), written the way `hsa augment`
// writes RL rows: nested data as JSON strings, tools in new names, one stop gate.
const clinicRow = {
  data_source: 'hsa/clinic',
  prompt: [
    { role: 'system', content: '你是诊所的预约助手。' },
    { role: 'user', content: '明天上午还能约牙科吗？' },
  ],
  ability: 'agent',
  reward_model: {
    style: 'rule',
    ground_truth: JSON.stringify({
      expected_calls: [
        { name: 'open_guide', arguments: { guide: 'booking' } },
        { name: 'slots_v2', arguments: { dept: 'dental', day: 'tomorrow' } },
      ],
      expected_skills: ['booking'],
      reference_reply: '明天上午九点和十点半还有空位。',
      turns: [
        {
          user: '明天上午还能约牙科吗？',
          calls: [
            { name: 'open_guide', arguments: { guide: 'booking' } },
            { name: 'slots_v2', arguments: { dept: 'dental', day: 'tomorrow' } },
          ],
          skills: ['booking'],
          reply: '明天上午九点和十点半还有空位。',
        },
      ],
    }),
  },
  extra_info: {
    index: 7,
    id: 'cl-1~v0',
    transforms: JSON.stringify([{ id: 'tools.rename', params: { renamed: { find_slots: 'slots_v2' } } }]),
    env: JSON.stringify({
      user_turns: ['明天上午还能约牙科吗？'],
      tool_replay: [
        { id: 'c1', name: 'open_guide', arguments: { guide: 'booking' }, result: '# Booking\nCall `slots_v2` with dept and day.' },
        { id: 'c2', name: 'slots_v2', arguments: { day: 'tomorrow', dept: 'dental' }, result: '{"slots":["09:00","10:30"]}' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'open_guide',
            description: 'Open a guide.',
            parameters: { type: 'object', properties: { guide: { type: 'string' } }, required: ['guide'], additionalProperties: false },
          },
        },
        {
          type: 'function',
          function: {
            name: 'slots_v2',
            description: 'Free slots.',
            parameters: {
              type: 'object',
              properties: { dept: { type: 'string', enum: ['dental', 'eye'] }, day: { type: 'string' } },
              required: ['dept', 'day'],
              additionalProperties: false,
            },
          },
        },
      ],
      hooks: [
        {
          id: 'short',
          event: 'stop',
          checks: [{ type: 'max_chars', value: 30 }],
          action: 'retry',
          channel: 'user',
          feedback: '[short] {{chars}} > {{max_chars}}',
          maxRounds: 2,
        },
      ],
      hook_message_prefix: 'hook:',
      skill_loader: { tool: 'open_guide', argument: 'guide' },
    }),
  },
};

const row = () => parseRow(JSON.parse(JSON.stringify(clinicRow)), 0);
const msg = (m: Record<string, unknown>) => readPolicyMessage(m, 'message', 'tool_error');
const calls = (...cs: [string, unknown][]) => ({
  role: 'assistant',
  content: '',
  tool_calls: cs.map(([name, args], i) => ({
    id: `k${i}`,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  })),
});

async function run(messages: Record<string, unknown>[], cfg: RewardConfig = { ...DEFAULT_REWARD_CONFIG, tokenizer: 'estimate' }) {
  const ep = new Episode(row());
  const answers = messages.map((m) => ep.step(msg(m)));
  return { ep, answers, reward: await scoreEpisode(ep, cfg, estimateCounter) };
}

const reference = [
  calls(['open_guide', { guide: 'booking' }], ['slots_v2', { dept: 'dental', day: 'tomorrow' }]),
  { role: 'assistant', content: '明天上午九点和十点半还有空位。' },
];

describe('reasoning-length penalty', () => {
  it.each([
    [50, 0],
    [100, 0],
    [150, 0.5],
    [200, 1],
    [400, 1],
  ])('L = %i tokens gives q = %f and a contribution of -0.1·q', async (L, q) => {
    expect(reasoningQ(L)).toBe(q);
    // End to end, with Qwen3's tokenizer: `the` + ` the`×(L−1) is exactly L tokens.
    const counter = await tokenCounter('qwen3');
    expect(counter.name).toBe('qwen3');
    const reasoning = `the${' the'.repeat(L - 1)}`;
    expect(counter.count(reasoning)).toBe(L);
    const ep = new Episode(row());
    ep.step(msg({ ...reference[0], reasoning_content: reasoning }));
    ep.step(msg({ role: 'assistant', content: `<think>${reasoning}</think>${reference[1]!.content}` }));
    const r = await scoreEpisode(ep, DEFAULT_REWARD_CONFIG, counter);
    expect(r.detail.reasoning.per_message.map((m) => m.tokens)).toEqual([L, L]);
    expect(r.components.reasoning_penalty).toBe(q === 0 ? 0 : -0.1 * q);
    expect(r.reward).toBeCloseTo(1 - 0.1 * q, 6);
  });

  it('averages over messages by default, sums with aggregate: sum', async () => {
    const counter = await tokenCounter('qwen3');
    const long = `the${' the'.repeat(299)}`;
    const ep = new Episode(row());
    ep.step(msg({ ...reference[0], reasoning_content: long }));
    ep.step(msg(reference[1]!));
    expect((await scoreEpisode(ep, DEFAULT_REWARD_CONFIG, counter)).components.reasoning_penalty).toBe(-0.05);
    const sum = { ...DEFAULT_REWARD_CONFIG, reasoning: { ...DEFAULT_REWARD_CONFIG.reasoning, aggregate: 'sum' as const } };
    expect((await scoreEpisode(ep, sum, counter)).components.reasoning_penalty).toBe(-0.1);
  });

  it('finds reasoning in reasoning_content, <think> blocks and an unopened </think>', () => {
    expect(splitReasoning('<think>a</think>reply')).toEqual({ reasoning: 'a', text: 'reply' });
    expect(splitReasoning('a\n</think>\n\nreply')).toEqual({ reasoning: 'a', text: 'reply' });
    expect(splitReasoning('reply', 'b')).toEqual({ reasoning: 'b', text: 'reply' });
    expect(splitReasoning('<think></think>reply')).toEqual({ reasoning: '', text: 'reply' });
    expect(estimateCounter.count('想想 abcd efgh')).toBe(2 + 3);
  });
});

describe('reward components', () => {
  it('the reference scores 1 on every component', async () => {
    const { reward, ep } = await run(reference);
    expect(ep.done).toBe(true);
    expect(reward.components).toEqual({ skill_selection: 1, tool_rationality: 1, hook_compliance: 1, reply_quality: 1, reasoning_penalty: 0 });
    expect(reward.reward).toBe(1);
  });

  it('tool rationality: name-only credit, unknown (stale) tools, schema-invalid and non-JSON calls, repeats', async () => {
    const wrongArgs = await run([calls(['open_guide', { guide: 'booking' }], ['slots_v2', { dept: 'eye', day: 'tomorrow' }]), reference[1]!]);
    // 1 exact + 0.5 name-only of 2 made / 2 expected.
    expect(wrongArgs.reward.components.tool_rationality).toBe(0.75);
    expect(wrongArgs.answers[0]!.messages[1]).toMatchObject({ role: 'tool', content: 'Error: slots_v2 returned nothing for these arguments.' });

    const stale = await run([calls(['open_guide', { guide: 'booking' }], ['find_slots', { dept: 'dental', day: 'tomorrow' }]), reference[1]!]);
    expect(stale.reward.detail.tools).toMatchObject({ invalid: 1, stale_names: ['find_slots'], matched: 1 });
    expect(stale.reward.components.tool_rationality).toBeCloseTo(0.5 - 0.2, 6);

    const invalid = await run([
      calls(['open_guide', { guide: 'booking' }], ['slots_v2', { dept: 'ear', day: 'tomorrow' }], ['slots_v2', '{oops']),
      reference[1]!,
    ]);
    expect(invalid.answers[0]!.messages.map((m) => m.content)).toEqual([
      '# Booking\nCall `slots_v2` with dept and day.',
      expect.stringContaining('Error: the arguments of slots_v2 do not match its schema'),
      'Error: the arguments of slots_v2 are not valid JSON.',
    ]);
    expect(invalid.reward.detail.tools).toMatchObject({ invalid: 2, made: 3 });

    const repeated = await run([reference[0]!, calls(['slots_v2', { day: 'tomorrow', dept: 'dental' }]), reference[1]!]);
    expect(repeated.answers[1]!.messages[0]!.content).toBe('{"slots":["09:00","10:30"]}');
    expect(repeated.reward.detail.tools.repeats).toBe(1);
    expect(repeated.reward.components.tool_rationality).toBeCloseTo(0.8 - 0.1, 6); // P 2/3, R 1: F1 0.8, minus one repeat
  });

  it('skill selection counts the skills selected, loaded or not', async () => {
    const wrong = await run([calls(['open_guide', { guide: 'billing' }], ['slots_v2', { dept: 'dental', day: 'tomorrow' }]), reference[1]!]);
    expect(wrong.reward.detail.skills).toMatchObject({ selected: ['billing'], expected: ['booking'] });
    expect(wrong.reward.components.skill_selection).toBe(0);
    const both = await run([calls(['open_guide', { guide: 'billing' }], ['open_guide', { guide: 'booking' }]), reference[1]!]);
    expect(both.reward.components.skill_selection).toBeCloseTo(2 / 3, 6);
  });

  it('hook compliance: a failed gate costs a feedback round; a gate that never passes scores 0 for the turn', async () => {
    const once = await run([reference[0]!, { role: 'assistant', content: '好'.repeat(40) }, reference[1]!]);
    expect(once.answers[1]!.messages).toEqual([{ role: 'user', name: 'hook:short', content: '[short] 40 > 30' }]);
    expect(once.reward.components.hook_compliance).toBe(0.5);
    const never = await run([reference[0]!, ...Array.from({ length: 3 }, () => ({ role: 'assistant', content: '好'.repeat(40) }))]);
    expect(never.ep.done).toBe(true);
    expect(never.reward.detail.hooks).toMatchObject({ exhausted: 1, feedback_rounds: 2 });
    expect(never.reward.components.hook_compliance).toBe(0);
  });

  it('a tool round over max_tool_rounds is not run: its calls are answered, the feedback goes in, the reply is forced', async () => {
    const raw = JSON.parse(JSON.stringify(clinicRow));
    const env = JSON.parse(raw.extra_info.env);
    env.hooks.push(
      {
        id: 'loop',
        event: 'pre_inference',
        checks: [{ type: 'max_tool_rounds', value: 1 }],
        action: 'force_reply',
        channel: 'system',
        feedback: '[loop] {{rounds}} rounds, limit {{max_tool_rounds}}',
        maxRounds: 3,
      },
      {
        id: 'rude',
        event: 'pre_inference',
        checks: [{ type: 'forbid', phrases: ['stupid'], regex: [], target: 'user' }],
        action: 'force_reply',
        channel: 'system',
        feedback: '[rude] reply briefly',
        maxRounds: 3,
      },
    );
    raw.extra_info.env = JSON.stringify(env);
    const ep = new Episode(parseRow(raw, 0));
    ep.step(msg(calls(['open_guide', { guide: 'booking' }])));
    const over = ep.step(msg(calls(['slots_v2', { dept: 'dental', day: 'tomorrow' }])));
    expect(over.messages).toEqual([
      { role: 'tool', tool_call_id: 'k0', content: 'not run: loop limits tool rounds for this turn; reply now' },
      { role: 'system', name: 'hook:loop', content: '[loop] 1 rounds, limit 1' },
    ]);
    expect(over.forceReply).toBe(true);
    ep.step(msg(reference[1]!));
    const r = await scoreEpisode(ep, DEFAULT_REWARD_CONFIG, estimateCounter);
    expect(r.detail.hooks).toMatchObject({ forced: 1, forced_violations: 0 });
    expect(r.detail.tools).toMatchObject({ made: 1, not_run: 1 });
    expect(r.components.hook_compliance).toBe(0.5);
    // A reply forced by a hook on the viewer's message is not the policy's doing.
    env.user_turns = ['you are stupid'];
    raw.extra_info.env = JSON.stringify(env);
    const rude = new Episode(parseRow(raw, 0));
    expect(rude.initialMessages.at(-1)).toEqual({ role: 'system', name: 'hook:rude', content: '[rude] reply briefly' });
    expect(rude.forcedReply).toBe(true);
    rude.step(msg({ role: 'assistant', content: '好的。' }));
    expect((await scoreEpisode(rude, DEFAULT_REWARD_CONFIG, estimateCounter)).detail.hooks.forced).toBe(0);
  });

  it('reply quality is a token F1 that works for Chinese and English', () => {
    expect(replyF1('明天上午九点和十点半还有空位。', '明天上午九点和十点半还有空位')).toBe(1);
    expect(replyF1('明天上午有空位', '明天上午九点和十点半还有空位')).toBeCloseTo((2 * 1 * (7 / 14)) / (1 + 7 / 14), 6);
    expect(replyF1('Yes, ONE free exchange', 'yes one free size exchange')).toBeCloseTo((2 * 1 * 0.8) / 1.8, 6);
    expect(replyF1('', 'x')).toBe(0);
    expect(replyF1('', '')).toBe(1);
  });

  it('a judge replaces the reference score when configured', async () => {
    const ep = new Episode(row());
    for (const m of reference) ep.step(msg(m));
    const seen: string[] = [];
    const judge = { name: 'fixed', score: async (i: { reply: string }) => (seen.push(i.reply), 0.4) };
    const r = await scoreEpisode(ep, DEFAULT_REWARD_CONFIG, estimateCounter, judge);
    expect(seen).toEqual(['明天上午九点和十点半还有空位。']);
    expect(r.components.reply_quality).toBe(0.4);
    expect(r.detail.reply.source).toBe('judge:fixed');
  });
});

describe('reward configuration', () => {
  afterAll(() => removeTempDirs());

  it('reads weights and penalties, and reports every bad key with file and line', async () => {
    const dir = tempDir('hsa-reward-cfg-');
    const good = path.join(dir, 'good.yaml');
    writeFileSync(good, 'weights:\n  reply_quality: 0.5\nreasoning:\n  aggregate: sum\ntokenizer: estimate\n');
    const cfg = await readRewardConfig(good);
    expect(cfg.weights).toEqual({ skill: 0.25, tool: 0.25, hook: 0.25, reply: 0.5 });
    expect(cfg.reasoning.aggregate).toBe('sum');
    expect(cfg.tokenizer).toBe('estimate');
    const { reward } = await run(reference, cfg);
    expect(reward.reward).toBe(1.25);
    const bad = path.join(dir, 'bad.yaml');
    writeFileSync(bad, 'weights:\n  reply_quality: -1\n  style: 2\nreasoning:\n  aggregate: max\n');
    const message = await readRewardConfig(bad).then(
      () => '',
      (e: Error) => e.message,
    );
    expect(message.split('\n')).toEqual([
      `${bad}:2: weights.reply_quality: Too small: expected number to be >=0`,
      `${bad}:3: weights: unknown key: style`,
      `${bad}:5: reasoning.aggregate: Invalid option: expected one of "mean"|"sum"`,
    ]);
  });
});
