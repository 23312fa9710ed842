import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readConfigFile } from '../src/config/augment-config.js';
import { fillIdStyle, namingContext, proposeName } from '../src/transform/naming.js';
import { createRng } from '../src/transform/rng.js';
import { BUILTIN_PACKS, readPackFile, wordsConfigSchema } from '../src/words/packs.js';
import { builtinWordLists, builtinWords, mergeWordLists, resolveWordsConfig, wordListsOf } from '../src/words/selection.js';
import { synonymsFor, wordContext } from '../src/words/senses.js';

const REPO = path.resolve(import.meta.dirname, '..');
const tmp = () => mkdtempSync(path.join(tmpdir(), 'hsa-packs-'));
/** The lines of the error reading `file` raises (`['']` when it reads). */
function packProblems(file: string): string[] {
  try {
    readPackFile(file);
    return [''];
  } catch (e) {
    return (e as Error).message.split('\n');
  }
}
const TOOL_RULES = { valid: (n: string) => /^[A-Za-z0-9_-]{1,64}$/.test(n), cases: ['snake' as const], opaquePrefix: 'tool' };

describe('built-in word packs', () => {
  it.each(BUILTIN_PACKS)('%s validates and has every kind of list it promises', (name) => {
    const lists = builtinWordLists(name);
    expect(lists.synonyms.size).toBeGreaterThan(10);
    expect(lists.distractorTools.length).toBeGreaterThan(1);
    expect(lists.distractorSkills.length).toBeGreaterThan(1);
    // Frames, feedback formats and id styles are language, not domain: every selection has them.
    expect(lists.descriptionFrames.verb.length).toBeGreaterThan(0);
    expect(lists.feedbackFrames.length).toBeGreaterThan(0);
    expect(lists.idStyles.length).toBeGreaterThan(0);
  });

  it('the default pack has no pinyin, no live-room prefix and no shop distractor', () => {
    const lc = parse(readFileSync(path.join(REPO, 'words/live-commerce.yaml'), 'utf8'));
    const pinyin = ['zhibo', 'shangpin', 'dingdan', 'youhui', 'sousuo', 'jisuan', 'zhibojian', 'quan', 'tuikuan', 'wuliu', 'kucun'];
    const text = readFileSync(path.join(REPO, 'words/default.yaml'), 'utf8');
    for (const w of pinyin) expect(text).not.toMatch(new RegExp(`\\b${w}\\b`));
    expect(builtinWords.prefixes).not.toContain('zhibo');
    expect(builtinWords.prefixes).not.toContain('live');
    expect(builtinWords.servers).not.toContain('shop');
    const shop = (lc.distractor_tools as { name: string }[]).map((t) => t.name).filter((n) => n !== 'translate_text');
    expect(shop).toEqual(expect.arrayContaining(['get_lottery_status', 'get_host_schedule', 'list_bundle_offers']));
    expect(builtinWords.distractorTools.filter((t) => shop.includes(t.name))).toEqual([]);
    expect(builtinWords.distractorTools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['convert_units', 'get_timezone', 'evaluate_expression', 'save_note']),
    );
  });

  it('ships next to the code: the packs are found from the built module too', async () => {
    const built = await import(path.join(REPO, 'dist/src/words/packs.js'));
    expect(built.builtinPackDir()).toBe(path.join(REPO, 'words'));
  });
});

describe('reading packs', () => {
  it('names file, line and key path of every problem at once', () => {
    const dir = tmp();
    const file = path.join(dir, 'p.yaml');
    writeFileSync(
      file,
      [
        'name: p',
        'synonyms:',
        '  Order: [booking]',
        '  seat:',
        '    - sense: place',
        '      cues: []',
        '      words: [Chair]',
        'prefixes: [ok, "two words"]',
        'id_styles: ["{prefix}_fixed"]',
        'description_frames:',
        '  verb: ["Use this"]',
        '  adverb: ["{core}"]',
        'distractor_skills:',
        '  - id: note',
        '    description: ""',
        '    body: x',
        'colour: blue',
      ].join('\n'),
    );
    const lines = packProblems(file);
    expect(lines).toEqual(
      expect.arrayContaining([
        `${file}:3: synonyms.Order: a synonym key is one lower-case word`,
        expect.stringMatching(new RegExp(`^${file}:6: synonyms\\.seat\\.0`)),
        `${file}:8: prefixes.1: must be one lower-case word (a-z, 0-9, starting with a letter)`,
        `${file}:9: id_styles.0: needs at least one random part ({hex:N}, {digits:N} or {letters:N})`,
        `${file}:11: description_frames.verb.0: needs exactly one {core} or {Core}`,
        `${file}:12: description_frames: unknown key: adverb`,
        expect.stringMatching(new RegExp(`^${file}:15: distractor_skills\\.0\\.description: `)),
        `${file}:17: (root): unknown key: colour`,
      ]),
    );
  });

  it('a distractor tool schema must be strict JSON Schema: an unquoted comma in a flow mapping is refused at its line', () => {
    const file = path.join(tmp(), 'comma.yaml');
    writeFileSync(
      file,
      [
        'distractor_tools:',
        '  - name: get_timezone',
        '    description: Look up the time zone of a city.',
        '    parameters:',
        '      type: object',
        '      properties:',
        '        city: { type: string, description: City name, optionally with its country. }',
        '  - name: ok_tool',
        '    description: Fine.',
        '    parameters: { type: object, properties: { q: { type: string, description: "a, b" } } }',
      ].join('\n'),
    );
    expect(packProblems(file)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7: distractor_tools\\.0\\.parameters\\.properties\\.city\\.optionally with its country\\.: not a strict JSON Schema: .*unknown keyword.*quote the text\\)$`,
        ),
      ),
    ]);
  });

  it('every built-in distractor tool has a schema a strict reader accepts, with string descriptions only', () => {
    for (const name of BUILTIN_PACKS) {
      const raw = parse(readFileSync(path.join(REPO, `words/${name}.yaml`), 'utf8')) as {
        distractor_tools: { parameters: { properties?: Record<string, Record<string, unknown>> } }[];
      };
      for (const t of raw.distractor_tools)
        for (const p of Object.values(t.parameters.properties ?? {})) for (const v of Object.values(p)) expect(v).not.toBeNull();
    }
  });

  it('YAML syntax errors name their line', () => {
    const file = path.join(tmp(), 'bad.yaml');
    writeFileSync(file, 'synonyms:\n  get: [fetch\n');
    expect(() => readPackFile(file)).toThrow(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: YAML syntax`));
  });
});

describe('selections', () => {
  const where = (key: (string | number)[]) => `hsa.yaml: ${key.join('.')}`;

  it('merges packs in order, each list added; a config list with mode replace is the only one', () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'mine.yaml'), 'synonyms:\n  seat: [place]\nprefixes: [trip]\n');
    const cfg = wordsConfigSchema.parse({
      packs: ['default', 'mine.yaml'],
      mode: { distractor_skills: 'replace', prefixes: 'add' },
      distractor_skills: [{ id: 'gate_info', description: 'Explain where gates are.', body: '# Gates\n\n- Say the terminal first.' }],
      prefixes: ['air'],
    });
    const sel = resolveWordsConfig(cfg, dir, where);
    expect(sel.sources.map((s) => ('pack' in s ? s.pack : 'file' in s ? path.basename(s.file) : 'inline'))).toEqual(['default', 'mine.yaml', 'inline']);
    const lists = wordListsOf(sel);
    expect(lists.distractorSkills.map((s) => s.name)).toEqual(['gate_info']);
    expect(lists.distractorTools).toEqual(builtinWords.distractorTools);
    expect(lists.prefixes).toEqual([...builtinWords.prefixes, 'trip', 'air']);
    expect(synonymsFor(lists, 'seat')).toEqual(['place']);
    expect(synonymsFor(lists, 'get')).toEqual(synonymsFor(builtinWords, 'get'));
    // mergeWordLists (what augment and preview call) reads a selection the same way
    expect(mergeWordLists(builtinWords, sel)).toBe(lists);
  });

  it('a pack named alone is used alone (no default words mixed in), frames still from the default pack', () => {
    const lists = wordListsOf(resolveWordsConfig({ packs: ['travel'] }, '.', where));
    expect(lists.synonyms.has('get')).toBe(false);
    expect(lists.distractorTools.map((t) => t.name)).not.toContain('convert_units');
    expect(lists.descriptionFrames).toEqual(builtinWords.descriptionFrames);
  });

  it('records a pack file the same however its path was spelled', () => {
    const spellings = [
      resolveWordsConfig({ file: './words/travel.yaml' }, '.', where),
      resolveWordsConfig({ file: 'travel.yaml' }, 'words', where),
      resolveWordsConfig({ packs: [path.join(REPO, 'words', '..', 'words', 'travel.yaml')] }, '/', where),
    ].map((s) => s.sources);
    expect(path.resolve('.')).toBe(REPO);
    for (const s of spellings) expect(s).toEqual(spellings[0]);
    expect(spellings[0]![0]).toMatchObject({ file: 'words/travel.yaml' });
  });

  it('refuses a pack whose bytes changed after it was selected', () => {
    const dir = tmp();
    const file = path.join(dir, 'p.yaml');
    writeFileSync(file, 'prefixes: [one]\n');
    const sel = resolveWordsConfig({ file: 'p.yaml' }, dir, where);
    const changed = { sources: sel.sources.map((s) => ({ ...s, sha256: '0'.repeat(64) })) };
    expect(() => wordListsOf(changed)).toThrow(/changed while in use/);
  });

  it('readConfigFile resolves `words:` relative to the config file, with the line of a bad entry', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'p.yaml'), 'prefixes: [one]\n');
    writeFileSync(path.join(dir, 'hsa.yaml'), 'seed: 3\nwords:\n  packs: [default, p.yaml]\n');
    const cfg = await readConfigFile(path.join(dir, 'hsa.yaml'));
    expect(cfg.words!.sources[1]).toMatchObject({ file: path.join(dir, 'p.yaml') });
    writeFileSync(path.join(dir, 'bad.yaml'), 'words:\n  packs:\n    - default\n    - missing.yaml\n');
    await expect(readConfigFile(path.join(dir, 'bad.yaml'))).rejects.toThrow(
      `${path.join(dir, 'bad.yaml')}:4: words.packs.1: word pack file ${path.join(dir, 'missing.yaml')} does not exist`,
    );
    writeFileSync(path.join(dir, 'old.yaml'), 'words:\n  descriptionFrames: ["{text}"]\n');
    await expect(readConfigFile(path.join(dir, 'old.yaml'))).rejects.toThrow(`${path.join(dir, 'old.yaml')}:2: words: unknown key: descriptionFrames`);
  });
});

describe('synonym senses', () => {
  const ctx = (text: string, name = '') => namingContext(name, text);

  it.each([
    ['Look up a flight booking order by its confirmation code.', ['booking', 'reservation']],
    ['Cancel a flight reservation order and refund the fare.', ['booking', 'reservation']],
    ['Return the status and shipping of a purchase order placed in the store.', ['purchase']],
    ['Sort the results in ascending or descending order.', ['sequence', 'ranking']],
  ])('order in %j → %j', (text, expected) => {
    expect(synonymsFor(builtinWords, 'order', ctx(text))).toEqual(expected);
  });

  it('with no cue (or a tie) only sense-neutral words are used', () => {
    expect(synonymsFor(builtinWords, 'order', ctx('Handle an order.'))).toEqual([]);
    // purchase cue (refund) and booking cue (flight) tie: no sense
    expect(synonymsFor(builtinWords, 'order', wordContext(['refund'], ['flight']))).toEqual([]);
    expect(synonymsFor(builtinWords, 'item', ctx('An item of a to-do list.'))).toEqual(['entry', 'element']);
    expect(synonymsFor(builtinWords, 'item', ctx('Add a product item to the cart.'))).toEqual(['entry', 'element', 'product', 'article']);
  });

  it.each([
    ['gate', 'Return the departure gate and terminal of a flight.', 'get_flight_gate', []],
    ['gate', 'Final-reply gate: keeps replies short.', 'stop_gate', ['check', 'guard', 'filter']],
    ['log', 'Log in with the account password.', 'log_in', []],
    ['stop', 'Number of stops on the flight route.', 'stop_count', []],
    ['schedule', 'The departure timetable of a flight.', 'get_schedule', ['timetable']],
  ])('%s in %j (%s) → %j', (word, text, name, expected) => {
    expect(synonymsFor(builtinWords, word, ctx(text, name))).toEqual(expected);
  });

  it('a sense with no words blocks renaming in that sense (check in a passenger)', () => {
    expect(synonymsFor(builtinWords, 'check', ctx('Check in a passenger for their flight.', 'check_in_passenger'))).toEqual([]);
    expect(synonymsFor(builtinWords, 'check', ctx('Check whether a seat is available.'))).toEqual(['verify', 'inspect']);
  });

  it('cues match inflected forms and Chinese text', () => {
    const lists = wordListsOf(
      resolveWordsConfig(wordsConfigSchema.parse({ synonyms: { order: [{ sense: 'purchase', cues: ['订单'], words: ['purchase'] }] } }), '.', () => ''),
    );
    expect(synonymsFor(lists, 'order', ctx('查询订单状态'))).toContain('purchase');
    expect(synonymsFor(builtinWords, 'order', ctx('Sorting rules for rankings'))).toEqual(['sequence', 'ranking']);
  });

  it('proposeName never picks a wrong sense over many seeds', () => {
    const desc = 'Cancel a flight reservation order. The fare is refunded when the fare rules allow it.';
    const names = new Set<string>();
    for (let seed = 0; seed < 200; seed++) {
      const r = proposeName('cancel_order', ['synonym'], TOOL_RULES, createRng('s', seed), builtinWords, () => false, namingContext('cancel_order', desc));
      if (r) names.add(r.name);
    }
    expect([...names].some((n) => /booking|reservation/.test(n))).toBe(true);
    for (const n of names) expect(n).not.toMatch(/sequence|ranking|rank|purchase/);
  });
});

describe('opaque id styles', () => {
  it.each([
    ['{prefix}_{hex:4}', /^tool_[0-9a-f]{4}$/],
    ['{prefix}{letters:2}{digits:2}', /^tool[a-z]{2}[0-9]{2}$/],
    ['x-{digits:6}', /^x-[0-9]{6}$/],
  ])('%s', (style, pattern) => {
    for (let seed = 0; seed < 20; seed++) expect(fillIdStyle(style, 'tool', createRng('id', seed))).toMatch(pattern);
  });

  it('an opaque rename uses the pack styles and follows the namespace case', () => {
    const words = { ...builtinWords, idStyles: ['{prefix}_{digits:5}'] };
    const r = proposeName('item_qa', ['opaque'], { valid: () => true, cases: ['kebab'], opaquePrefix: 'skill' }, createRng('o', 1), words, () => false);
    expect(r?.name).toMatch(/^skill-[0-9]{5}$/);
  });
});
