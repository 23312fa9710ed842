import { cp, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO, runHsaAsync, STACK_LINE } from '../helpers/hsa.js';
import { startTeacherServer, type Behaviour, type ChatRequest, type TeacherServer } from '../helpers/teacher-server.js';
import { makeTmp } from '../helpers/tmp.js';

// `hsa migrate apply --teacher openai`: the records the plan cannot carry are re-run under B by a
// teacher behind an OpenAI-compatible server on 127.0.0.1, through the real `openai` client and the
// engine's episode runtime (as test/e2e/teacher.e2e.test.ts does for augment). The replay
// environment maps each teacher call back through the migration plan (split cases, values, and a
// value B requires that A never had, which is the teacher's to give) to a recorded call of the source.
let tmp: { dir: string; cleanup: () => Promise<void> };
let lib: string;
const servers: TeacherServer[] = [];
beforeAll(async () => {
  tmp = await makeTmp('hsa-migrate-teacher-');
  lib = path.join(tmp.dir, 'library');
  await cp(path.join(REPO, 'fixtures/migrate/library'), lib, { recursive: true });
  // One carried record, then the three kinds of reject a teacher may re-run: a value B requires that
  // the plan cannot supply (get_fines → list_fines needs currency), a removed tool (suggest_reading),
  // a failed check (the assistant's own text names the split tool find_book).
  const all = (await readFile(path.join(lib, 'logs-v1.jsonl'), 'utf8')).trim().split('\n');
  await writeFile(path.join(lib, 'in.jsonl'), `${[all[0], all[5], all[6], all[9]].join('\n')}\n`);
});
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});
afterAll(async () => tmp.cleanup());

const lines = async (file: string) =>
  (await readFile(file, 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
const msg = (content: string | null, calls: { name: string; arguments: string }[] = []): Behaviour => ({
  kind: 'message',
  content,
  tool_calls: calls,
  finish_reason: calls.length ? 'tool_calls' : 'stop',
});

/** A teacher that answers each record by its user's words; `card` is the card it sends for the fines. */
function teacher(card: string) {
  return (req: ChatRequest): Behaviour => {
    const user = String(req.messages.find((m) => m.role === 'user' && m.name === undefined)?.content ?? '');
    const answered = req.messages[req.messages.length - 1]?.role === 'tool';
    if (user.startsWith('What do I owe?'))
      return answered
        ? msg('You owe 3.50 for "Harbour Lights".')
        : msg('', [{ name: 'list_fines', arguments: JSON.stringify({ patron_card: card, currency: 'EUR' }) }]);
    if (user.startsWith('Do you have "Nine Lanterns"'))
      return answered
        ? msg('No, that title is not in the catalogue.')
        : msg('Let me search the catalogue.', [{ name: 'search_by_title', arguments: '{"title":"Nine Lanterns"}' }]);
    // The removed tool's record: B has no staff picks; an author search matches no recorded call.
    if (user.startsWith('Recommend me')) return answered ? msg('Here are some.') : msg('', [{ name: 'search_by_author', arguments: '{"author":"crime"}' }]);
    return msg('I cannot help with that.');
  };
}

async function apply(card: string, out: string) {
  const server = await startTeacherServer(teacher(card));
  servers.push(server);
  const args = [
    'migrate',
    'apply',
    '--plan',
    'plan.yaml',
    '-t',
    'in.jsonl',
    '-o',
    out,
    '--json',
    '--teacher',
    'openai',
    '--teacher-url',
    server.url,
    '--teacher-model',
    'teacher-test',
    '--cache',
    `cache-${out}`,
  ];
  return { run: await runHsaAsync(args, { cwd: lib }), server };
}

describe('hsa migrate apply --teacher', () => {
  it('writes a rejected record a teacher re-runs correctly under B; one that diverges stays rejected with the reason', async () => {
    const { run, server } = await apply('2004-118', 'good.jsonl');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ records: 4, migrated: 3, rejected: 1, reasons: { removed_tool: 1 }, teacher: { rerun: 3, written: 2 } });
    // Two model calls for each record the teacher gets right (a tool call, then the reply); the divergent call ends its episode.
    expect(server.requests.length).toBe(5);
    // The teacher sees B's tools, never A's.
    const tools = server.requests[0]!.tools!.map((t) => t.function.name);
    expect(tools).toContain('list_fines');
    expect(tools).not.toContain('get_fines');

    const out = await lines(path.join(lib, 'good.jsonl'));
    expect(out.map((r) => r.id)).toEqual(['lib-001', 'lib-006', 'lib-010']);
    const fines = out[1]!;
    expect(fines.harness).toEqual({ name: 'library-desk', version: '2.0.0' });
    expect(fines.messages.find((m: any) => m.role === 'assistant' && m.tool_calls).tool_calls[0].function).toEqual({
      name: 'list_fines',
      arguments: '{"patron_card":"2004-118","currency":"EUR"}',
    });
    // The tool result is the recorded one, byte for byte.
    expect(fines.messages.find((m: any) => m.role === 'tool').content).toBe('{"total":3.5,"items":[{"title":"Harbour Lights","amount":3.5}]}');
    expect(JSON.stringify(out[2])).not.toContain('find_book');
    // What was written is valid under B as `hsa validate` says.
    const validate = await runHsaAsync(['validate', 'v2', '-t', 'good.jsonl'], { cwd: lib });
    expect(validate.stdout + validate.stderr).toBe('valid: harness library-desk 2.0.0, 3 records in 1 file: 0 errors, 0 warnings\n');

    const rejects = await lines(path.join(lib, 'good.rejects.jsonl'));
    expect(rejects.map((r) => [r.id, r.reason_kind, r.plan_entry])).toEqual([['lib-007', 'removed_tool', 'tools[5] (from: suggest_reading)']]);
    expect(rejects[0]!.teacher).toMatch(/^teacher_divergent_call: divergent call: search_by_author\(\{"author":"crime"\}\) matches no recorded call/);
    // Nothing lost: the source as it was read.
    expect(rejects[0]!.record.messages[2].function).toBeUndefined();
  });

  it('keeps the record rejected when the teacher calls with a value the source never used', async () => {
    const { run } = await apply('2004-999', 'bad.jsonl');
    expect(run.stderr).not.toContain(STACK_LINE);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ migrated: 2, rejected: 2, reasons: { no_value: 1, removed_tool: 1 }, teacher: { rerun: 3, written: 1 } });
    const fines = (await lines(path.join(lib, 'bad.rejects.jsonl'))).find((r) => r.id === 'lib-006')!;
    expect(fines.reason_kind).toBe('no_value');
    expect(fines.teacher).toMatch(/^teacher_divergent_call: divergent call: list_fines\(\{"patron_card":"2004-999","currency":"EUR"\}\)/);
  });

  it('says what is missing when --teacher has no endpoint', async () => {
    const r = await runHsaAsync(['migrate', 'apply', '--plan', 'plan.yaml', '-t', 'in.jsonl', '-o', 'x.jsonl', '--teacher', 'openai'], { cwd: lib });
    expect(r.stderr).toContain('--teacher openai needs --teacher-url');
    expect(r.stderr).not.toContain(STACK_LINE);
    expect(r.code).not.toBe(0);
  });
});
