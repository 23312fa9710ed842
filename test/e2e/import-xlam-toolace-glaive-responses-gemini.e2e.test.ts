import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync } from '../helpers/hsa.js';
import { removeTempDirs, tempDir } from '../helpers/tmp.js';

/**
 * The formats of the third real-data audit — xLAM/APIGen (and Seal-Tools, ToolAlpaca, API-Bank as
 * published in its shape), ToolACE Python call text, glaive v2 text and OpenAI Responses API logs —
 * each with a fixture written for this project (fixtures/import/<format>, non-commerce domains)
 * holding good and bad lines. The real binary imports them (fail mode: every bad line reported as
 * `file:line: field: reason`, nothing written; skip mode: the rest written, the bad lines in the
 * rejects file), then validates, augments 8 variants and the independent checker reads the bytes.
 */

const CHECKER = path.join(REPO, 'scripts/audit/check-output.mjs');
afterAll(() => removeTempDirs());

type Call = { id: string; function: { name: string; arguments: string } };
type Msg = { role: string; content: unknown; tool_call_id?: string; tool_calls?: Call[]; reasoning_content?: string; refusal?: string };
type Rec = { id: string; messages: Msg[]; tools?: { function: { name: string; parameters: Record<string, unknown> } }[]; meta?: Record<string, unknown> };
const readJsonl = <T>(f: string) =>
  readFileSync(f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as T);

/** Fail mode, then skip mode; returns the imported records after validate, augment -k 8 and the checker pass. */
async function roundTrip(from: string, fixture: string, badLines: string[], extra: string[] = []): Promise<{ recs: Rec[]; imported: string; out: string }> {
  const dir = tempDir(`hsa-third-${from}-`);
  const imported = path.join(dir, 'imported.jsonl');
  const rel = path.relative(REPO, fixture);
  const fail = await runHsaAsync(['import', '--from', from, rel, '-o', imported], { cwd: REPO });
  expect(fail.code).toBe(1);
  const reported = fail.stderr.split('\n').filter((l) => l.startsWith(`${rel}:`));
  expect(reported).toEqual(badLines.map((l) => `${rel}:${l}`));
  expect(existsSync(imported)).toBe(false);
  const skip = await runHsaAsync(['import', '--from', from, rel, '-o', imported, '--on-error', 'skip'], { cwd: REPO });
  expect(skip.code, skip.stderr).toBe(0);
  const rejects = readJsonl<{ line: number; problems: { path: string; message: string }[]; source: string }>(path.join(dir, 'imported.rejects.jsonl'));
  expect(rejects.map((r) => `${r.line}: ${r.problems[0]!.path}: ${r.problems[0]!.message}`)).toEqual(badLines);
  const v = await runHsaAsync(['validate', '-t', imported]);
  expect(v.code, v.stdout + v.stderr).toBe(0);
  const out = path.join(dir, 'out');
  const a = await runHsaAsync(['augment', '--no-gzip', '-t', imported, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--json', ...extra]);
  expect(a.code, a.stderr).toBe(0);
  expect((JSON.parse(a.stdout) as { totals: { variants_rejected: number } }).totals.variants_rejected).toBe(0);
  const c = spawnSync(process.execPath, [CHECKER, '--out', out, '--sources', imported, '--json'], { encoding: 'utf8' });
  expect((JSON.parse(c.stdout) as { failures: unknown }).failures).toEqual({});
  expect(c.status).toBe(0);
  return { recs: readJsonl<Rec>(imported), imported, out };
}

const fx = (p: string) => path.join(REPO, 'fixtures/import', p);
const byId = (recs: Rec[], id: string) => recs.find((r) => r.id === id)!;
const callsOf = (r: Rec) => r.messages.flatMap((m) => m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments) as unknown]);

describe('xlam: query/tools/answers as JSON strings, parameters with Python types', () => {
  it('converts parameter dicts to JSON Schema, keeps ids, order and defaults; Seal-Tools, ToolAlpaca and API-Bank shapes too', async () => {
    const { recs } = await roundTrip('xlam', fx('xlam/transit-library.json'), [
      '188: tools: is not JSON',
      '194: answers: empty: the record has no call and no text to learn from',
      '200: answers.0.name: missing',
      '206: tools.0.parameters.isbn: must be an object {type, description, default} or a type name',
      '212: tools.0.required: "year" is not a parameter',
    ]);
    expect(recs.map((r) => r.id)).toEqual(['0', '1', '2', 'seal-1', 'alpaca-1', 'apibank-1', 'alpaca-tags']);
    const r0 = byId(recs, '0');
    expect(r0.tools![0]!.function.parameters).toEqual({
      type: 'object',
      properties: {
        stop_id: { type: 'string', description: "The stop's id." },
        lines: { type: 'array', items: { type: 'integer' }, description: 'Only these line numbers.', default: null },
        limit: { type: 'integer', description: 'How many departures.', default: 5 },
      },
      required: ['stop_id'],
    });
    // Parallel answers are one assistant turn, left unanswered (the target), ids generated in order.
    expect(r0.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(r0.messages[1]!.tool_calls!.map((c) => c.id)).toEqual(['0:c1', '0:c2']);
    expect(callsOf(r0)).toEqual([
      ['transit.next_departures', { stop_id: 'KX-14' }],
      ['fare_quote', { zones: ['A', 'B', 'C'], rider: 'student' }],
    ]);
    const stats = byId(recs, '1').tools![1]!.function.parameters as { properties: Record<string, unknown>; required: string[] };
    expect(stats.properties).toEqual({
      line: { type: ['integer', 'string'], description: 'Line number or name.' },
      days: { type: 'integer', description: 'Days back.', default: 7 },
      smoother: { description: 'A smoothing function.', default: null },
      window: { type: 'array', description: 'Hours of the day as (from, to).', default: [6, 22] },
    });
    expect(stats.required).toEqual(['line']);
    expect(byId(recs, 'seal-1').tools![0]!.function.parameters.required).toEqual(['branch', 'month']);
    expect(callsOf(byId(recs, 'seal-1'))).toEqual([['getLoanCount', { branch: 'Riverside', month: '2024-03', medium: 'e-book' }]]);
    expect(byId(recs, 'alpaca-1').tools![0]!.function.parameters.required).toEqual(['line']);
    // Nothing in API-Bank says which parameters are required: none is.
    const bank = byId(recs, 'apibank-1');
    expect(bank.tools![1]!.function.parameters).toEqual({
      type: 'object',
      properties: {
        card_id: { type: 'string', description: 'Card number.' },
        kinds: { type: 'array', items: { type: 'string' }, description: 'Only these kinds of fines.' },
      },
    });
    expect(bank.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Renew my card 22-7781 please.'],
      ['assistant', 'Renewing it now.'],
      ['assistant', ''],
      ['tool', "{'status': 'renewed', 'until': '2027-01-31'}"],
      ['assistant', 'Done, valid until January 2027.'],
      ['user', 'And how much do I owe in fines?'],
      ['assistant', 'Let me look.\nGenerate API Request:'],
    ]);
    expect(callsOf(bank)).toEqual([
      ['RenewCard', { card_id: '22-7781' }],
      ['QueryFines', { card_id: '22-7781' }],
    ]);
    expect(bank.messages[3]!.tool_call_id).toBe('apibank-1:c1');
  }, 90_000);

  it('every stage of the import passes hsa verify --sources (API-Bank splits a turn into a reply and its calls)', async () => {
    const dir = tempDir('hsa-third-xlam-verify-');
    const imported = path.join(dir, 'x.jsonl');
    const i = await runHsaAsync(['import', '--from', 'xlam', fx('xlam/transit-library.json'), '-o', imported, '--on-error', 'skip']);
    expect(i.code, i.stderr).toBe(0);
    const out = path.join(dir, 'out');
    // Every OPD prompt (`all`), so the cut inside the API-Bank record's split turn would be written.
    const a = await runHsaAsync(['augment', '-t', imported, '-o', out, '-k', '4', '--opd-prompts', 'all', '-q']);
    expect(a.code, a.stderr).toBe(0);
    const v = await runHsaAsync(['verify', out, '--sources', imported]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout + v.stderr).toMatch(/^sound: /m);
    // `--harness inline`, as augment spells it, is the same proof; on a harness-folder run it is refused.
    const vi = await runHsaAsync(['verify', out, '--harness', 'inline', '--sources', imported]);
    expect(vi.code, vi.stdout + vi.stderr).toBe(0);
    expect(vi.stderr).toContain('round trip to the sources');
    const folderOut = path.join(dir, 'folder');
    const f = await runHsaAsync(
      ['augment', '--harness', 'fixtures/live-commerce/harness', '-t', 'fixtures/live-commerce/trajectories.jsonl', '-o', folderOut, '-k', '1', '-q'],
      {
        cwd: REPO,
      },
    );
    expect(f.code, f.stderr).toBe(0);
    const vf = await runHsaAsync(['verify', folderOut, '--harness', 'inline']);
    expect(vf.code).toBe(2);
    expect(vf.stderr).toContain('--harness inline: this run was made with the harness "fixtures/live-commerce/harness"');
  }, 90_000);

  it('a tool named like a renamed parameter of another tool keeps its name, and the checker takes it for no leak', async () => {
    const dir = tempDir('hsa-third-xlam-tags-');
    const imported = path.join(dir, 'x.jsonl');
    const i = await runHsaAsync(['import', '--from', 'xlam', fx('xlam/transit-library.json'), '-o', imported, '--on-error', 'skip']);
    expect(i.code, i.stderr).toBe(0);
    const out = path.join(dir, 'out');
    const a = await runHsaAsync(['augment', '--no-gzip', '-t', imported, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--transforms', 'tools.param-rename']);
    expect(a.code, a.stderr).toBe(0);
    const sft = readJsonl<Rec & { meta: { source_id: string; transforms: { id: string; params: { renamed?: Record<string, string> } }[] } }>(
      path.join(out, 'sft/part-00000.jsonl'),
    );
    const renamedTags = sft.filter((r) => r.meta.source_id === 'alpaca-tags' && r.meta.transforms.some((t) => t.params.renamed?.tags !== undefined));
    // The case exists in this run (else the test would prove nothing): the `tags` tool beside a renamed `tags` parameter.
    expect(renamedTags.length).toBeGreaterThan(0);
    for (const r of renamedTags) expect(r.tools!.map((t) => t.function.name)).toContain('tags');
    const c = spawnSync(process.execPath, [CHECKER, '--out', out, '--sources', imported, '--json'], { encoding: 'utf8' });
    expect((JSON.parse(c.stdout) as { failures: unknown }).failures).toEqual({});
  }, 60_000);
});

describe('toolace: tools in the system prompt, calls as Python call text', () => {
  it('reads call lists (names with spaces and dots, positional arguments named by the schema), pairs [{name, results}] by name', async () => {
    const { recs } = await roundTrip('toolace', fx('toolace/mountain-guide.jsonl'), [
      '4: conversations.1.value: looks like a Python call list but cannot be read as one (a value that is not a Python literal, or unbalanced brackets)',
      '5: conversations.1.value[0]: "Trail Conditions": a tool result with no call',
      '6: conversations.1.value[0]: 1 positional argument(s) to "Mountain Forecast", which the record\'s tools do not describe',
      '7: conversations.0.from: unknown speaker "guide"',
    ]);
    expect(recs.map((r) => r.id)).toEqual(['tc-1', 'tc-2', 'tc-3', 'tc-py-tools']);
    // A tool list written as a Python literal, brackets and quotes inside its strings.
    const py = byId(recs, 'tc-py-tools');
    expect(py.tools!.map((t) => [t.function.name, (t.function as { description?: string }).description])).toEqual([
      ['avalanche.bulletin', "Danger level on the European scale, e.g. [1, 5]; 'high' means 4."],
    ]);
    expect(callsOf(py)).toEqual([['avalanche.bulletin', { region: 'FR-74' }]]);
    const one = byId(recs, 'tc-1');
    expect(one.tools!.map((t) => t.function.name)).toEqual(['Trail Conditions', 'Mountain Forecast', 'hut.availability']);
    expect(callsOf(one)).toEqual([
      ['Trail Conditions', { trail: 'Ridge Loop', units: 'metric' }],
      ['Mountain Forecast', { peak: 'Mont Pelat', days: 2 }],
    ]);
    expect(one.messages.filter((m) => m.role === 'tool').map((m) => [m.tool_call_id, m.content])).toEqual([
      ['tc-1:c1', '{"open":true,"snow_cm":0}'],
      ['tc-1:c2', '{"day1":"sunny","day2":"showers"}'],
    ]);
    expect(callsOf(byId(recs, 'tc-2'))).toEqual([
      ['hut.availability', { hut: 'Refuge Vallon', date: '2025-07-12', beds: 2 }],
      ['Mountain Forecast', { peak: 'Vallon' }],
    ]);
    // Bracketed prose is text, not calls.
    expect(byId(recs, 'tc-3').messages[2]).toEqual({
      role: 'assistant',
      content: '[Crampons, an ice axe and a harness] are the essentials; none of my tools covers gear lists.',
    });
  }, 90_000);
});

describe('glaive: SYSTEM: text with JSON tools, chat text with turn markers', () => {
  it('splits turns, reads <functioncall> with quoted or object arguments, drops end markers', async () => {
    const { recs } = await roundTrip('glaive', fx('glaive/recipes.jsonl'), [
      '5: chat.turns.1.<functioncall>.arguments: arguments are not JSON',
      '6: chat.turns.1: a tool result with no call',
      '7: chat: does not start with a USER:, ASSISTANT: or FUNCTION RESPONSE: turn',
      '9: system.<tools>.1: tool "set_timer" is defined twice, differently',
      '10: chat.turns.2: the function response opens as JSON but is not JSON (cut short, or a turn marker inside it)',
    ]);
    expect(recs.map((r) => r.id)).toEqual(['recipes.jsonl:1', 'recipes.jsonl:2', 'recipes.jsonl:3', 'recipes.jsonl:4', 'recipes.jsonl:8', 'recipes.jsonl:11']);
    const r1 = recs[0]!;
    expect(r1.tools!.map((t) => t.function.name)).toEqual(['nutrition_facts', 'scale_recipe']);
    expect(
      (r1.messages[0]!.content as string).startsWith('You are a helpful assistant with access to the following functions. Use them if required -\n{'),
    ).toBe(true);
    expect(r1.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'How much protein is in 100 g of lentils?'],
      ['assistant', ''],
      ['tool', '{"food": "lentils", "protein_g": 9.0}'],
      ['assistant', '100 g of cooked lentils have about 9 g of protein.'],
      ['user', 'Scale recipe DAL-3 to 6 servings, please.'],
      ['assistant', 'Sure, one moment.'],
      ['tool', '{"recipe_id": "DAL-3", "lentils_g": 450}'],
      ['assistant', 'For 6 servings use 450 g of lentils.'],
    ]);
    // A quoted JSON string of arguments is kept as written; an object is serialised.
    expect(r1.messages[2]!.tool_calls![0]!.function.arguments).toBe('{"food": "lentils", "fields": ["protein"]}');
    expect(r1.messages[6]!.tool_calls![0]!.function.arguments).toBe('{"recipe_id":"DAL-3","servings":6}');
    expect(recs[1]!.tools).toBeUndefined();
    expect(recs[3]!.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // Arguments quoted in single quotes with apostrophes inside, unescaped, as glaive writes them.
    expect(recs[5]!.messages[2]!.tool_calls![0]!.function.arguments).toBe('{"recipe_id": "NAN-2", "servings": 4, "note": "grandma\'s"}');
    // A definition written twice alike is one tool; `parameters` where others write `arguments`; turns a blank line apart.
    const timer = recs[4]!;
    expect(timer.tools!.map((t) => t.function.name)).toEqual(['set_timer']);
    expect(callsOf(timer)).toEqual([['set_timer', { minutes: 12 }]]);
    expect(timer.messages.slice(1).map((m) => [m.role, m.content])).toEqual([
      ['user', 'Set a timer for 12 minutes for the eggs.'],
      ['assistant', ''],
      ['tool', '{"status": "running"}'],
      ['assistant', 'Your 12-minute timer is running.'],
    ]);
  }, 90_000);
});

describe('responses: OpenAI Responses API logs', () => {
  it('instructions, input and output items in order; call ids kept; reasoning summaries, refusals; chained and built-in items refused', async () => {
    const { recs } = await roundTrip('responses', fx('responses/lab-ops.jsonl'), [
      '6: request.tools.0.type: "web_search" is a server tool, not a function tool; only function tools can be imported',
      '7: request.input.0.content.0: "input_image" parts cannot be imported (only text)',
      '8: response.error: the call failed (rate_limit_exceeded): no reply to import',
      '9: request.input.0: request continues previous_response_id "resp_1", whose items this line does not hold: a tool result with no call (tool call id "call_a")',
      '10: response.output.0.type: "web_search_call" items cannot be imported (only messages, function calls and their outputs)',
    ]);
    // lab-1a is the start of lab-1b's conversation: superseded.
    expect(recs.map((r) => r.id)).toEqual(['lab-1b', 'lab-2', 'lab-3', 'lab-4', 'lab-5']);
    // Text logged after a turn's call is that turn's (the call stays open for its output); reasoning no reply follows is kept in meta.
    const five = byId(recs, 'lab-5');
    expect(five.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'Is there DMSO in C4?'],
      ['assistant', 'Looking it up.'],
      ['tool', 'none left'],
      ['user', 'OK, thanks.'],
    ]);
    expect(five.meta).toEqual({ reasoning_without_reply: ['Out of stock; the user may want to reorder.'] });
    const b = byId(recs, 'lab-1b');
    expect(b.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'tool', 'assistant']);
    expect(b.messages[2]!.tool_calls!.map((c) => c.id)).toEqual(['call_a', 'call_b']);
    expect(b.messages[2]!.reasoning_content).toBe('Two lookups, independent.');
    expect(b.messages[4]).toEqual({ role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: 'C4-1: 4 L' }] });
    expect(b.messages[5]!.content).toBe('Acetonitrile: 1.5 L on shelf B2-3. Ethanol: 4 L in C4-1.');
    expect(b.tools!.map((t) => t.function.name)).toEqual(['find_reagent', 'reserve_instrument']);
    const two = byId(recs, 'lab-2');
    expect(two.messages.map((m) => [m.role, m.content])).toEqual([
      ['developer', 'Book in whole hours.'],
      ['user', [{ type: 'text', text: 'Book the NMR at 09:00 tomorrow (2025-03-04) for 2 hours.' }]],
      ['assistant', 'Booking it.'],
    ]);
    expect(byId(recs, 'lab-4').messages[1]).toEqual({ role: 'assistant', content: '', refusal: "I can't help with that." });
  }, 90_000);
});

describe('gemini: generateContent logs', () => {
  const fixture = fx('gemini/herbarium.jsonl');

  it('system instruction, contents and the first candidate in order; OpenAPI types; both field spellings; calls paired by id, else name', async () => {
    const { recs } = await roundTrip('gemini', fixture, [
      '5: request.tools.0: "googleSearch" is a server tool, not a function tool; only function declarations can be imported',
      '6: request.contents.0.parts.1: "inlineData" parts cannot be imported (only text, function calls and their responses)',
      '7: response.candidates: missing (a blocked prompt has none)',
      '8: request.contents.0.parts.0: a tool result with no call (tool call id "fc-z")',
      '9: response.candidates.0.content.parts.0: "executableCode" parts cannot be imported (only text, function calls and their responses)',
    ]);
    // hb-1a is the start of hb-1b (its made-up call ids differ only by the record id): superseded.
    expect(recs.map((r) => r.id)).toEqual(['hb-1b', 'hb-2', 'hb-3']);
    const one = byId(recs, 'hb-1b');
    expect(one.messages.map((m) => [m.role, m.content])).toEqual([
      ['system', "You are the herbarium's collections assistant.\nNever promise a loan before request_loan succeeds."],
      ['user', 'Do we hold any Silene acaulis from Norway?'],
      ['assistant', null],
      ['tool', '2 sheets: H-1182, H-1190'],
      ['assistant', 'Yes: two sheets, H-1182 and H-1190.'],
    ]);
    expect(one.messages[2]!.reasoning_content).toBe('Checking the catalogue.');
    expect(one.tools![0]!.function.parameters).toEqual({
      type: 'object',
      properties: { taxon: { type: 'string', description: 'Genus or species.' }, country: { type: ['string', 'null'] }, limit: { type: 'integer' } },
      required: ['taxon'],
    });
    const two = byId(recs, 'hb-2');
    expect(two.messages.map((m) => [m.role, m.tool_call_id ?? null])).toEqual([
      ['system', null],
      ['user', null],
      ['assistant', null],
      ['tool', 'fc-b'],
      ['tool', 'fc-a'],
      ['user', null],
      ['assistant', null],
    ]);
    expect(two.messages[2]!.tool_calls!.map((c) => c.id)).toEqual(['fc-a', 'fc-b']);
    expect(two.messages[3]!.content).toBe('{"sheets":["H-2001"]}');
    expect(two.tools![1]!.function.parameters.$defs).toBeDefined();
  }, 90_000);

  it('wrapping the parameters of a schema with $defs keeps the definitions at the root (before: an internal error ended the run)', async () => {
    const dir = tempDir('hsa-third-gemini-defs-');
    const imported = path.join(dir, 'g.jsonl');
    expect((await runHsaAsync(['import', '--from', 'gemini', fixture, '-o', imported, '--on-error', 'skip'])).code).toBe(0);
    const out = path.join(dir, 'out');
    const a = await runHsaAsync(['augment', '--no-gzip', '-t', imported, '-o', out, '-k', '8', '--stages', 'sft', '-q', '--transforms', 'tools.schema-style']);
    expect(a.code, a.stderr).toBe(0);
    const sft = readJsonl<Rec & { meta: { source_id: string; transforms: { id: string; params: { restyled?: Record<string, string> } }[] } }>(
      path.join(out, 'sft/part-00000.jsonl'),
    );
    const wrapped = sft.filter((r) => r.meta.transforms.some((t) => t.params.restyled?.request_loan?.startsWith('wrap:')));
    expect(wrapped.length).toBeGreaterThan(0);
    for (const r of wrapped) {
      const p = r.tools!.find((t) => t.function.name === 'request_loan')!.function.parameters;
      expect(Object.keys(p)).toContain('$defs');
      expect(JSON.stringify(p)).toContain('"$ref":"#/$defs/Institution"');
    }
    const c = spawnSync(process.execPath, [CHECKER, '--out', out, '--sources', imported, '--json'], { encoding: 'utf8' });
    expect((JSON.parse(c.stdout) as { failures: unknown }).failures).toEqual({});
  }, 60_000);
});
