import { describe, expect, it } from 'vitest';
import { renderPrompt, renderTools } from '../src/harness/render.js';
import type { Harness, Skill, Tool } from '../src/harness/types.js';
import { augmentOne } from '../src/trajectory/augment.js';
import { checkLeaks } from '../src/trajectory/invariants.js';
import { rewriteTrajectory } from '../src/trajectory/rewrite.js';
import type { Message, Trajectory } from '../src/trajectory/types.js';
import { emptyPlan } from '../src/transform/plan.js';
import { createRng, type Rng } from '../src/transform/rng.js';
import { renameInState } from '../src/transform/state.js';
import { resolveTransforms } from '../src/transform/variant.js';
import { builtinTransforms } from '../transforms/index.js';
import { builtinWords } from '../src/words/selection.js';
import { baseHarness } from './helpers/state.js';
import { hasToken, leaksInBody, leaksInText, tagNames } from './helpers/output-scanner.js';

/**
 * Generated harnesses whose section titles, sub-headings and list items spell their own tools',
 * skills' and parameters' names, under every combination of the prompt transforms, combined with
 * every rename: the final bytes (system prompt, preamble, tools, messages) carry no name a rename
 * took away — checked by an independent scanner, and by the engine's own checks.
 */

const VERBS = ['cancel', 'refund', 'search', 'lookup', 'reserve', 'export', 'notify'];
const NOUNS = ['pending order', 'booking', 'ticket', 'invoice', 'flight', 'report', 'user'];
const PARAMS = ['name', 'query', 'order_id', 'date', 'reason', 'format', 'email'];

function title(words: string): string {
  return words[0]!.toUpperCase() + words.slice(1);
}

/** One generated harness: tools named from prose, headings and rules that spell every name. */
function generate(rng: Rng): Harness {
  const tools: Tool[] = [];
  const used = new Set<string>();
  const toolCount = 2 + Math.floor(rng.next() * 3);
  while (tools.length < toolCount) {
    const verb = rng.pick(VERBS);
    // Some tools are one plain word (`lookup`), most are several words.
    const words = rng.chance(0.25) ? [verb] : [verb, ...rng.pick(NOUNS).split(' ')];
    const name = words.join('_');
    if (used.has(name)) continue;
    used.add(name);
    const params = rng.sample(PARAMS, 1 + Math.floor(rng.next() * 3));
    tools.push({
      name,
      description: `${title(words.join(' '))}. Pass ${params.map((p) => `\`${p}\``).join(' and ')}.`,
      parameters: {
        type: 'object',
        properties: Object.fromEntries(params.map((p) => [p, { type: 'string', description: `The ${p.replace(/_/g, ' ')}.` }])),
        required: [params[0]],
      },
      sourceName: name,
      sourceFormat: 'openai',
    });
  }
  const loader: Tool = {
    name: 'load_skill',
    description: 'Load a skill by its name.',
    parameters: { type: 'object', properties: { name: { type: 'string', description: 'Skill name.' } }, required: ['name'] },
    sourceName: 'load_skill',
    sourceFormat: 'openai',
  };
  const skillIds = rng.sample(['refund-policy', 'order-help', 'search-tips', 'api-notes'], 3);
  const t0 = tools[0]!;
  const p0 = Object.keys(t0.parameters.properties as object)[0]!;
  const skills: Skill[] = skillIds.map((id, i) => ({
    id,
    description: `${title(id.replace(/-/g, ' '))} help.`,
    kind: 'reply',
    tools: [],
    body: [
      `# ${title(id.replace(/-/g, ' '))}`,
      '',
      `1. Call \`${t0.name}\` with \`${p0}\` first.`,
      `2. Then load \`${skillIds[(i + 1) % skillIds.length]}\` when needed.`,
      '',
      'Unrelated example:',
      '',
      '```json',
      '{"name": "Oslo", "query": "direct", "date": "2026-01-01"}',
      '```',
      '',
      'Each record has a `name` and a `format`.',
    ].join('\n'),
    extra: {},
  }));
  const all = [...tools.map((t) => t.name), ...skillIds];
  const sections = [
    { id: 'role', kind: 'text' as const, text: '# Role\n\nYou help with bookings.', placement: 'system' as const },
    {
      id: 'procedures',
      kind: 'text' as const,
      text: [
        '# Procedures',
        ...tools.flatMap((t) => [
          '',
          `## ${title(t.name.replace(/_/g, ' '))}`,
          '',
          `- Use ${t.name.replace(/_/g, ' ')} only when asked.`,
          `- Call \`${t.name}\` with ${Object.keys(t.parameters.properties as object)
            .map((p) => `\`${p}\``)
            .join(', ')}.`,
        ]),
        '',
        `## ${title(p0.replace(/_/g, ' '))}`,
        '',
        `- The ${p0.replace(/_/g, ' ')} is always required.`,
        '',
        `## ${title(skillIds[0]!.replace(/-/g, ' '))}`,
        '',
        `- Load \`${skillIds[0]}\` first.`,
      ].join('\n'),
      placement: 'system' as const,
    },
    ...tools.map((t) => ({
      id: `about_${t.name}`,
      kind: 'text' as const,
      text: `# ${title(t.name.replace(/_/g, ' '))}\n\n- ${title(t.name.replace(/_/g, ' '))} is for one record at a time.\n- Never guess.`,
      placement: 'system' as const,
    })),
    {
      id: 'notes',
      kind: 'text' as const,
      text: `# Stop gate\n\n- Keep replies short.\n- Mention ${all.map((n) => `\`${n}\``).join(', ')} by name.`,
      placement: 'system' as const,
    },
    { id: 'skills', kind: 'catalog' as const, text: '', placement: 'system' as const },
  ];
  return baseHarness({
    sections,
    unordered: ['notes'],
    skillNaming: 'agent-skills',
    skillLoader: { tool: 'load_skill', argument: 'name' },
    skills,
    tools: [loader, ...tools],
    hooks: [
      {
        id: 'stop_gate',
        event: 'stop',
        checks: [{ type: 'max_chars', value: 500 }],
        action: 'retry',
        channel: 'user',
        feedback: '[stop_gate] Too long: {{chars}} characters.',
        maxRounds: 2,
      },
    ],
  });
}

function recordFor(h: Harness, id: string): Trajectory {
  const t = h.tools.find((x) => x.name !== h.skillLoader?.tool)!;
  const skill = h.skills[0];
  const args = Object.fromEntries(Object.keys(t.parameters.properties as object).map((p) => [p, 'x']));
  const messages: Message[] = [
    { role: 'system', content: renderPrompt(h, {}).system },
    { role: 'user', content: 'Please help with my booking.' },
  ];
  if (h.skillLoader && skill) {
    messages.push(
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: h.skillLoader.tool, arguments: JSON.stringify({ name: skill.id }) } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: skill.body },
    );
  }
  messages.push(
    { role: 'assistant', content: null, tool_calls: [{ id: 'c2', type: 'function', function: { name: t.name, arguments: JSON.stringify(args) } }] },
    { role: 'tool', tool_call_id: 'c2', content: '{"ok":true}' },
    { role: 'assistant', content: `Done with \`${t.name}\`.` },
  );
  return { id, messages, tools: renderTools(h) };
}

const PROMPT = [
  'prompt.merge-split',
  'prompt.section-order',
  'prompt.rule-order',
  'prompt.placement',
  'prompt.heading-style',
  'prompt.list-style',
  'prompt.spacing',
];
const RENAMES = ['tools.rename', 'tools.param-rename', 'skills.rename', 'hooks.rename'];

/** Independent scan of a variant's final bytes: every renamed-away name the record still carries. */
function scan(
  rec: Trajectory,
  plan: { tools: Record<string, string>; skills: Record<string, string>; hooks: Record<string, string> },
  params: Record<string, string>,
  from: Harness,
): string[] {
  const all = { ...plan.tools, ...plan.skills, ...plan.hooks, ...params };
  const now = new Set(Object.values(all));
  const gone = Object.keys(all).filter((k) => !now.has(k));
  if (gone.length === 0) return [];
  const owners = new Map<string, Set<string>>();
  for (const p of Object.keys(params)) {
    const set = new Set<string>();
    for (const t of from.tools) if (p in (t.parameters.properties as object)) set.add(t.name).add(plan.tools[t.name] ?? t.name);
    owners.set(p, set);
  }
  const out: string[] = [];
  const bodyIds = new Set<string>();
  rec.messages.forEach((m, i) => {
    const text = typeof m.content === 'string' ? m.content : '';
    if (m.role === 'tool' && bodyIds.has(m.tool_call_id)) for (const n of leaksInBody(text, gone, owners)) out.push(`messages.${i} body: ${n}`);
    else if (m.role !== 'tool' && !(m.role === 'user' && m.name === undefined)) for (const n of leaksInText(text, gone, now)) out.push(`messages.${i}: ${n}`);
    if (m.role === 'assistant')
      for (const c of m.tool_calls ?? []) {
        if (gone.includes(c.function.name)) out.push(`messages.${i}: calls ${c.function.name}`);
        if (c.function.name === (plan.tools.load_skill ?? 'load_skill')) bodyIds.add(c.id);
      }
  });
  for (const t of rec.tools ?? []) {
    if (gone.includes(t.function.name)) out.push(`tools: ${t.function.name}`);
    for (const n of leaksInText(t.function.description, gone, now)) out.push(`tools.${t.function.name}: ${n}`);
  }
  return out;
}

describe('generated harnesses that spell their names in headings and rules', () => {
  it('0 leaks in final bytes under every prompt-transform combination with every rename', () => {
    const problems: string[] = [];
    let neutral = 0;
    let variants = 0;
    for (let g = 0; g < 3; g++) {
      const h = generate(createRng('fidelity-gen', g));
      const source = recordFor(h, `gen-${g}`);
      for (let mask = 0; mask < 1 << PROMPT.length; mask++) {
        const chosen = PROMPT.filter((_, i) => mask & (1 << i));
        // xml headings are what turns a title into a name-like tag: force them where heading-style runs.
        const selection: Record<string, unknown> = Object.fromEntries([...RENAMES, ...chosen].map((id) => [id, { p: 1 }]));
        if (chosen.includes('prompt.heading-style')) selection['prompt.heading-style'] = { p: 1, headings: ['xml'] };
        const resolved = resolveTransforms(builtinTransforms, selection, 'rewrite');
        const v = augmentOne(source, h, resolved, `mask-${mask}`, g, builtinWords);
        variants++;
        for (const f of v.failures) problems.push(`${v.id} [${chosen.join(',')}]: engine: ${f}`);
        const params = (v.variant.applied.find((a) => a.id === 'tools.param-rename')?.params.renamed ?? {}) as Record<string, string>;
        for (const f of scan(v.record, v.variant.plan, params, h)) problems.push(`${v.id} [${chosen.join(',')}]: ${f}`);
        if ((v.record.messages[0]!.content as string).includes('<section title=')) neutral++;
      }
    }
    expect(problems.slice(0, 10)).toEqual([]);
    expect(variants).toBe(3 * 128);
    // Titles that spell names were met and rendered neutrally.
    expect(neutral).toBeGreaterThan(50);
  });

  it('the leak check reads generated markup: an xml tag spelling a renamed tool is caught (the pre-render texts are clean)', () => {
    const h = baseHarness({
      sections: [
        { id: 'cancel', kind: 'text', text: '# Cancel pending order\n\n- Ask for the reason first.', placement: 'system' },
        { id: 'other', kind: 'text', text: '# Other\n\n- Be brief.', placement: 'system' },
      ],
      tools: [
        {
          name: 'cancel_pending_order',
          description: 'Cancel an order.',
          parameters: { type: 'object', properties: { reason: { type: 'string' } } },
          sourceName: 'cancel_pending_order',
          sourceFormat: 'openai',
        },
      ],
    });
    const map = { cancel_pending_order: 'void_order' };
    const renamed = renameInState(h, { tools: map });
    // A restyle that derives the tag from the title, as heading-style did before neutral titles.
    const to: Harness = { ...renamed, promptStyle: { heading: 'xml', headingLevel: 1, titleCase: 'as-is', listMarker: '-', separator: '\n\n' } };
    const plan = { ...emptyPlan(), tools: map };
    const source = recordFor(h, 'demo');
    const rec = rewriteTrajectory(source, plan, h, to);
    // What the old check scanned (the texts the state renders from) does not name the old tool…
    for (const s of to.sections) expect(hasToken(s.text, 'cancel_pending_order')).toBe(false);
    // …but the system prompt the model reads does, as a tag.
    expect(tagNames(rec.messages[0]!.content as string)).toContain('cancel_pending_order');
    expect(checkLeaks(rec, plan, h, to)).toContain('prompt.cancel: mentions old name "cancel_pending_order"');
    // With the title marked neutral (what heading-style now does), the tag is gone and so is the leak.
    const fixed: Harness = { ...to, promptStyle: { ...to.promptStyle!, neutralTitles: ['Cancel pending order'] } };
    const ok = rewriteTrajectory(source, plan, h, fixed);
    expect(ok.messages[0]!.content).toContain('<section title="Cancel pending order">');
    expect(checkLeaks(ok, plan, h, fixed)).toEqual([]);
  });

  it('the leak check reads a system prompt that is not the state rendering as it stands', () => {
    const h = baseHarness({
      sections: [{ id: 'r', kind: 'text', text: '# R\n\n- Be brief.', placement: 'system' }],
      tools: [{ name: 'get_order', description: 'Get.', parameters: { type: 'object', properties: {} }, sourceName: 'get_order', sourceFormat: 'openai' }],
    });
    const map = { get_order: 'fetch_order' };
    const to = renameInState(h, { tools: map });
    const plan = { ...emptyPlan(), tools: map };
    const rec = rewriteTrajectory(recordFor(h, 'x'), plan, h, to);
    expect(checkLeaks(rec, plan, h, to)).toEqual([]);
    const edited = { ...rec, messages: [{ role: 'system' as const, content: `${rec.messages[0]!.content as string}\n<get_order>` }, ...rec.messages.slice(1)] };
    expect(checkLeaks(edited, plan, h, to)).toContain('messages.0: mentions old name "get_order"');
  });
});
