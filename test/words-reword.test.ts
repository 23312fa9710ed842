import { describe, expect, it } from 'vitest';
import { createRng } from '../src/transform/rng.js';
import { parseDescription, reword, rewordings } from '../src/words/reword.js';
import { builtinWords } from '../src/words/selection.js';
import { stem } from '../src/words/senses.js';

const frames = builtinWords.descriptionFrames;

/** Realistic descriptions of many shapes and domains (written for this test). */
const DESCRIPTIONS: string[] = [
  // imperative verb first
  'Get the current weather for a city.',
  'Fetch flight schedules between two airports.',
  'List all open tickets for a customer.',
  'Create a new calendar event.',
  'Cancel a pending reservation. Only reservations that have not been ticketed can be cancelled.',
  'Look up an order by its number.',
  'Check whether a seat upgrade is available.',
  'Explain the refund policy to the customer.',
  'Record a note about the customer call.',
  'Summarize the conversation so far',
  'Translate text between English and German.\n\nArgs:\n  text: the text\n  target: language code',
  'Find hotels near a landmark, sorted by distance.',
  'Send a one-time passcode to the phone number on file.',
  'Generate an invoice PDF for a completed purchase.',
  'Book a reservation.',
  'Return some items of a delivered order.',
  // third person
  'Returns the status of an order.',
  "Gets the user's profile by id.",
  'Retrieves the order history of a customer (most recent first).',
  'Calculates the fare difference, e.g. when changing dates.',
  'Sends a confirmation email. Requires the booking reference.',
  'Provides the list of airports served by the airline.',
  "Updates the passenger's contact details.",
  'Handles greetings from viewers.',
  'Extracts text and tables from PDF files, fills forms, merges documents. Use when working with PDF files.',
  'Greets.',
  'Performs exact string replacements in files.',
  'Allows the assistant to search the web and use the results in its answers.',
  // noun phrase (or a verb we cannot tell from a noun)
  'The current weather conditions for a location.',
  'Order lookup by id.',
  'Flight status and gate information.',
  'Search flights by origin, destination and date.',
  'Lists available seats on a flight.',
  'Pricing rules for bundles.',
  'FAQ entries of the store.',
  'get_weather wraps the OpenWeather API.',
  'Returns and exchanges policy.',
  'Check-in status of a passenger.',
  'Display name of the current user.',
  'Answers questions about product materials and care.',
  'Helper to format dates.',
  'Reply skill for thank-you messages.',
  'Strategy for comparing two products side by side.',
  'Creates, updates and deletes calendar events.',
  'Exchange items in a delivered order to new items of the same product type.',
  'A powerful search tool built on ripgrep',
  // "This tool …"
  'This tool returns the baggage allowance for a fare class.',
  'This tool belongs to the billing team and issues refunds.',
  'This tool can be used to convert currencies.',
  'This tool is used for booking hotel rooms.',
  'This tool lets you reschedule an appointment.',
  'This tool should be used when the customer asks for a human agent.',
  'This skill explains how loyalty points are earned.',
  // "Use this …"
  'Use this tool to send an email to the customer.',
  'Use this when the user wants to change their seat.',
  'Use when working with PDF files or when the user mentions PDFs.',
  'Use this skill when the viewer asks about sizes.',
  'Use this only when the user explicitly asks to cancel.',
  'Use this for questions about baggage fees.',
  // "Tool for …", "A tool that …", "Used to …"
  'Tool for booking flights.',
  'A tool for searching the knowledge base.',
  'A tool that computes shipping costs for a parcel.',
  'Tool to escalate a conversation to a human.',
  "Used to verify a passenger's identity before changes.",
  'Booking a flight for the user after confirming the fare.',
  // Chinese
  '查询订单状态。',
  '该工具用于查询航班信息。',
  '根据用户的身高体重推荐尺码',
  '订单状态查询，支持按订单号查找。',
  '当用户询问退款时使用。',
  '获取商品的库存数量。库存为零时返回空列表。',
];

/** Descriptions left alone: a question, another language, an original that is already broken. */
const LEFT_ALONE = [
  "What's the weather like?",
  '- Fast file pattern matching\n- Supports glob patterns',
  '## Search\nFind documents.',
  'Obtiene el estado de un pedido del cliente.',
  'Use this to guidance for writing replies.',
  'ユーザーの注文を検索します。',
  '',
];

const STOP = new Set('this tool function skill use used can may should will the and for when that which with you lets its into from only'.split(' '));
const contentStems = (s: string) => new Set((s.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => !STOP.has(w)).map(stem));
const BASE_AFTER = /^(?:Use this(?: tool| skill)? to|Call this (?:tool|skill) to|Lets you) ([a-z]+)/;
const THIRD_AFTER = /^(?:This (?:tool|skill)|It|The (?:tool|skill)|When called, it) ([a-z]+)/;

function bigrams(s: string): Set<string> {
  const w = s.toLowerCase().match(/[a-z']+/g) ?? [];
  return new Set(w.slice(1).map((x, i) => `${w[i]} ${x}`));
}

describe('description rewording: 60+ real-style descriptions', () => {
  it('has 50+ descriptions of many shapes', () => {
    expect(DESCRIPTIONS.length).toBeGreaterThanOrEqual(50);
    const shapes = new Set(DESCRIPTIONS.map((d) => parseDescription(d)?.shape));
    expect([...shapes].sort()).toEqual(['clause', 'for', 'noun', 'verb', 'verb3', 'when', 'zh_noun', 'zh_verb']);
  });

  it.each(DESCRIPTIONS)('%j: every rewording is grammatical and keeps the meaning', (text) => {
    for (const thing of ['tool', 'skill'] as const) {
      const out = rewordings(text, frames, thing);
      expect(out.length, 'at least one rewording').toBeGreaterThan(0);
      const zh = /[\u4e00-\u9fff]/.test(text);
      const p = parseDescription(text)!;
      for (const { text: r } of out) {
        expect(r).not.toBe(text);
        // the frames of the bad outputs never appear
        expect(r).not.toMatch(/\bto this tool\b|\bto guidance\b|\bUse this to (?:the|a|an|this)\b/i);
        // no doubled words the original did not have
        for (const m of r.matchAll(/\b([a-z]+)\s+\1\b/gi)) expect(text.toLowerCase()).toContain(m[0].toLowerCase());
        // the rest of the description (after the first sentence) is kept byte for byte
        expect(r.endsWith(p.rest)).toBe(true);
        if (zh) {
          // Chinese stays Chinese: no Latin letter the original did not have
          expect(r.match(/[A-Za-z]+/g) ?? []).toEqual(text.match(/[A-Za-z]+/g) ?? []);
          // every character of the original but punctuation and the lead-in ("该工具用于") is kept
          for (const ch of text.replace(/^(?:该|此|本)?(?:工具|技能)?(?:用于)?/, '').replace(/[。，！？：]/g, '')) expect(r).toContain(ch);
          continue;
        }
        // verb-form agreement: base form after "to"/"Lets you", third person after a subject
        const base = BASE_AFTER.exec(r)?.[1];
        if (base) expect(base, r).not.toMatch(/[^s]s$/);
        const third = THIRD_AFTER.exec(r)?.[1];
        if (third) expect(third, r).toMatch(/s$/);
        // a new "to X" is always followed by a verb in base form
        for (const bg of bigrams(r)) if (bg.startsWith('to ') && !bigrams(text).has(bg)) expect(bg, r).not.toMatch(/^to (?:the|a|an|this|it)$|[^s]s$/);
        // meaning kept: every content word of the original is still there (inflection aside)
        const stems = contentStems(r);
        for (const s of contentStems(text)) expect(stems.has(s), `${s} in ${JSON.stringify(r)}`).toBe(true);
      }
    }
  });

  it.each(LEFT_ALONE)('%j is left alone', (text) => {
    expect(rewordings(text, frames, 'tool')).toEqual([]);
  });

  it.each([
    ['Get the current weather for a city.', 'tool', 'This tool gets the current weather for a city.'],
    ['Get the current weather for a city.', 'tool', 'Use this to get the current weather for a city.'],
    ['Returns the status of an order.', 'tool', 'Use this tool to return the status of an order.'],
    ['This tool returns the baggage allowance for a fare class.', 'tool', 'Returns the baggage allowance for a fare class.'],
    ['This tool belongs to the billing team and issues refunds.', 'tool', 'It belongs to the billing team and issues refunds.'],
    ['This tool can be used to convert currencies.', 'tool', 'Converts currencies.'],
    ['This tool is used for booking hotel rooms.', 'tool', 'Meant for booking hotel rooms.'],
    ['Use when working with PDF files or when the user mentions PDFs.', 'skill', 'Use this skill when working with PDF files or when the user mentions PDFs.'],
    ['Use this only when the user explicitly asks to cancel.', 'tool', 'Call this tool only when the user explicitly asks to cancel.'],
    ['Tool for booking flights.', 'tool', 'Use this for booking flights.'],
    ['Order lookup by id.', 'tool', 'Purpose: Order lookup by id.'],
    ['The current weather conditions for a location.', 'tool', 'Summary: The current weather conditions for a location.'],
    ['Sends a confirmation email. Requires the booking reference.', 'tool', 'Send a confirmation email. Requires the booking reference.'],
    [
      'Translate text between English and German.\n\nArgs:\n  text: the text',
      'tool',
      'Lets you translate text between English and German.\n\nArgs:\n  text: the text',
    ],
    ['该工具用于查询航班信息。', 'tool', '此工具用于查询航班信息。'],
    ['查询订单状态。', 'skill', '调用此技能来查询订单状态。'],
    ['根据用户的身高体重推荐尺码', 'tool', '说明：根据用户的身高体重推荐尺码'],
  ] as const)('%j (%s) may become %j', (text, thing, expected) => {
    expect(rewordings(text, frames, thing).map((r) => r.text)).toContain(expected);
  });

  it('never switches the person of one verb in a list of verbs', () => {
    const out = rewordings('Extracts text and tables from PDF files, fills forms, merges documents.', frames, 'tool').map((r) => r.text);
    expect(out.some((r) => /^(?:Use this|Lets you|Extract )/.test(r))).toBe(false);
  });

  it('picks deterministically from the seed', () => {
    const pick = (seed: number) => reword('Get the current weather for a city.', builtinWords, 'tool', createRng('t', seed))!.text;
    expect(pick(3)).toBe(pick(3));
    expect(new Set(Array.from({ length: 30 }, (_, i) => pick(i))).size).toBeGreaterThan(3);
  });

  it('respects the length limit', () => {
    const long = `Returns ${'x'.repeat(1000)}.`;
    for (const r of rewordings(long, frames, 'skill', 1024)) expect(r.text.length).toBeLessThanOrEqual(1024);
  });
});
