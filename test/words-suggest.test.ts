import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bufferIo } from '../src/cli/io.js';
import { readPackFile } from '../src/words/packs.js';
import { startTeacherServer, type ChatRequest, type TeacherServer } from './helpers/teacher-server.js';

const HARNESS = 'fixtures/airline/harness';
const tmp = () => mkdtempSync(path.join(tmpdir(), 'hsa-suggest-'));

const GOOD = {
  synonyms: {
    order: [{ sense: 'booking', cues: ['flight', 'reservation'], words: ['booking', 'reservation'] }],
    passenger: ['traveler', 'flyer'],
    seat: ['place'],
  },
  prefixes: ['air'],
  distractor_tools: [
    {
      name: 'get_lounge_hours',
      description: 'Return the opening hours of an airport lounge.',
      parameters: { type: 'object', properties: { airport: { type: 'string' } }, required: ['airport'] },
    },
  ],
  distractor_skills: [{ id: 'lounge_reply', kind: 'reply', description: 'Answer questions about lounges.', body: '# Lounges\n\n- Name the lounge first.' }],
};
// The first answer repeats a harness tool and gives a schema that is not an object: the model is asked again.
const BAD = { ...GOOD, distractor_tools: [{ name: 'cancel_order', description: 'Cancel.', parameters: { type: 'string' } }] };

/** The model behind the test server: a bad answer to a first request, a good one to a correction (the route handler of this test). */
function answer(req: ChatRequest) {
  const corrected = req.messages.some((m) => m.role === 'user' && String(m.content).includes('not a valid pack'));
  if (req.model === 'always-bad') return { kind: 'message' as const, content: 'Here are my ideas: none.' };
  return { kind: 'message' as const, content: `\`\`\`json\n${JSON.stringify(corrected ? GOOD : BAD)}\n\`\`\`` };
}

let server: TeacherServer;
let denied: TeacherServer;
beforeAll(async () => {
  server = await startTeacherServer((req) => answer(req));
  denied = await startTeacherServer(() => ({ kind: 'status', status: 401 }));
});
afterAll(async () => {
  await server.close();
  await denied.close();
});

// The built CLI (its version is read relative to dist/), in this process: the test server's counts stay readable.
const REPO = path.resolve(import.meta.dirname, '..');
const { run } = (await import(path.join(REPO, 'dist/src/cli/main.js'))) as typeof import('../src/cli/main.js');

async function hsa(args: string[]) {
  const io = bufferIo();
  const code = await run(args, io);
  return { code, ...io };
}

describe('hsa words suggest', () => {
  it('asks the model, corrects an invalid answer, writes a valid pack; a rerun with the cache sends nothing and writes the same bytes', async () => {
    const dir = tmp();
    const cache = path.join(dir, 'cache');
    const out = path.join(dir, 'airline-words.yaml');
    const before = server.count();
    const a = await hsa(['words', 'suggest', '--harness', HARNESS, '--model-url', server.url, '--model', 'm1', '--cache', cache, '-o', out]);
    expect(a.code, a.stderr).toBe(0);
    expect(server.count() - before).toBe(2);
    const sent = server.requests.slice(before);
    expect(sent[0]!.temperature).toBe(0);
    // the model sees the harness: tool names, parameter names, descriptions
    expect(JSON.stringify(sent[0]!.messages)).toContain('get_order_status: Look up a flight booking order');
    expect(JSON.stringify(sent[0]!.messages)).toContain('confirmation_code');
    // the correction names the problems
    const correction = String(sent[1]!.messages.at(-1)!.content);
    expect(correction).toContain('distractor_tools.0.parameters: must be a JSON Schema with type: object');
    const pack = readPackFile(out);
    expect(pack.lists.distractorTools!.map((t) => t.name)).toEqual(['get_lounge_hours']);
    expect(pack.lists.synonyms!.get('order')!.senses[0]!.words).toEqual(['booking', 'reservation']);
    const bytes = readFileSync(out);
    expect(bytes.toString()).toMatch(/^# Word pack suggested by `hsa words suggest` \(model m1\) for airline-desk 1\.4\.0\./);

    const again = await hsa([
      'words',
      'suggest',
      '--harness',
      HARNESS,
      '--model-url',
      server.url,
      '--model',
      'm1',
      '--cache',
      cache,
      '-o',
      out,
      '--require-cache',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(server.count() - before).toBe(2);
    expect(readFileSync(out)).toEqual(bytes);
    expect(again.stderr).toContain('0 sent, 2 from the cache');
  });

  it('prints the pack on stdout without --out', async () => {
    const r = await hsa(['words', 'suggest', '--harness', HARNESS, '--model-url', server.url, '--model', 'm1', '--cache', path.join(tmp(), 'c')]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('name: airline-desk-suggested');
  });

  it('fails (exit 1) when no answer is a valid pack, naming the problem', async () => {
    const r = await hsa([
      'words',
      'suggest',
      '--harness',
      HARNESS,
      '--model-url',
      server.url,
      '--model',
      'always-bad',
      '--cache',
      path.join(tmp(), 'c'),
      '--attempts',
      '2',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no valid word pack after 2 answers');
    expect(r.stderr).toContain('answer: not JSON');
  });

  it('a refused request (401) and a cache miss under --require-cache are errors (exit 1)', async () => {
    const a = await hsa(['words', 'suggest', '--harness', HARNESS, '--model-url', denied.url, '--model', 'm1', '--cache', path.join(tmp(), 'c')]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('the model refused our credentials (401)');
    const b = await hsa([
      'words',
      'suggest',
      '--harness',
      HARNESS,
      '--model-url',
      server.url,
      '--model',
      'm1',
      '--cache',
      path.join(tmp(), 'c'),
      '--require-cache',
    ]);
    expect(b.code).toBe(1);
    expect(b.stderr).toContain('is not in the cache');
  });
});
