import path from 'node:path';
import type { Harness } from '../harness/types.js';
import { messageContentJson } from '../harness/render.js';
import { messagesWriter, recordLine } from '../util/json-out.js';
import { LineFileWriter } from '../util/line-writer.js';
import { formatProblem } from '../problems.js';
import type { SystemPromptMode } from '../trajectory/check.js';
import { readTrajectories } from '../trajectory/read.js';
import { callArgs, NOT_JSON } from '../util/call-args.js';
import { getPath } from '../util/path.js';
import { migrateRecord, type MigrateRejectKind } from './apply.js';
import { compilePlan, type CompiledPlan } from './compile.js';
import type { MigrationPlan } from './types.js';
import type { Teacher } from '../teacher/types.js';
import type { TeacherRerunOptions } from './teacher.js';

const SHARED = ['tools'];
const WRITERS = { messages: messagesWriter(messageContentJson, () => false) };

export interface ApplySummary {
  records: number;
  migrated: number;
  rejected: number;
  /** Reject kinds with counts, sorted by kind. */
  reasons: Record<string, number>;
  out: string;
  rejects: string;
  /** With `--teacher`: rejects re-run under B, and how many of those were written. */
  teacher?: { rerun: number; written: number };
}

/** `--teacher`: the teacher that re-runs rejects under B, and the episode settings. */
export interface ApplyTeacher {
  teacher: Teacher;
  options: Omit<TeacherRerunOptions, 'file' | 'line'>;
}

/**
 * Migrate every record of the input files (in the order given, then line order) into `out`;
 * every record not carried goes to `rejects` with its reason kind, the detail and the plan entry
 * that stopped it. Both files are written under temporary names and renamed when complete.
 * Deterministic: output bytes depend on the inputs, the plan and the two harnesses only.
 */
export async function applyPlan(
  plan: MigrationPlan,
  a: Harness,
  b: Harness,
  inputs: readonly string[],
  out: string,
  rejects: string,
  opts: { systemPrompt?: SystemPromptMode; teacher?: ApplyTeacher } = {},
): Promise<ApplySummary> {
  const cp = compilePlan(plan, a, b);
  const writer = await LineFileWriter.open(out);
  const rejectWriter = await LineFileWriter.open(rejects);
  const reasons = new Map<MigrateRejectKind, number>();
  let records = 0;
  const rerun = opts.teacher ? { ...opts.teacher, module: await import('./teacher.js'), rerun: 0, written: 0 } : undefined;
  try {
    for (const input of inputs) {
      // Rejects name the input as relative to the working folder, however it was spelled.
      const file = path.relative(process.cwd(), path.resolve(input)).split(path.sep).join('/');
      for await (const item of readTrajectories(input)) {
        records++;
        if (!item.ok) {
          reasons.set('input_malformed', (reasons.get('input_malformed') ?? 0) + 1);
          await rejectWriter.write(
            JSON.stringify({
              file,
              line: item.line,
              reason_kind: 'input_malformed',
              reason: item.problems.map((p) => formatProblem({ ...p, file })).join('; '),
              text: item.text,
            }),
          );
          continue;
        }
        const r = migrateRecord(item.record, cp, a, b, { file, line: item.line, ...(opts.systemPrompt ? { systemPrompt: opts.systemPrompt } : {}) });
        if (r.ok) {
          // B's prompt and tool list are the same objects for every record: their JSON is made once.
          const wait = writer.write(recordLine(r.record as unknown as Record<string, unknown>, SHARED, WRITERS));
          if (wait) await wait;
          continue;
        }
        // --teacher: the episode runtime re-runs the record under B; written when it passes every check.
        let teacherReason: string | undefined;
        if (rerun && rerun.module.TEACHER_RERUN_KINDS.has(r.reject.kind)) {
          rerun.rerun++;
          const t = await rerun.module.rerunWithTeacher(item.record, cp, a, b, rerun.teacher, `migrate:${file}:${item.line}`, {
            ...rerun.options,
            file,
            line: item.line,
          });
          if (t.ok) {
            rerun.written++;
            await writer.write(recordLine(t.record as unknown as Record<string, unknown>, SHARED, WRITERS));
            continue;
          }
          teacherReason = t.reason;
        }
        reasons.set(r.reject.kind, (reasons.get(r.reject.kind) ?? 0) + 1);
        // The source as it was read (the checks may have normalised the parsed copy), its text as it stands.
        const head = JSON.stringify({
          id: item.record.id,
          file,
          line: item.line,
          reason_kind: r.reject.kind,
          reason: r.reject.reason,
          ...(r.reject.entry ? { plan_entry: r.reject.entry } : {}),
          ...(teacherReason !== undefined ? { teacher: teacherReason } : {}),
        });
        await rejectWriter.write(`${head.slice(0, -1)},"record":${item.text}}`);
      }
    }
    await rerun?.teacher.settle?.();
    await LineFileWriter.commitAll([writer, rejectWriter]);
  } catch (e) {
    await writer.abort();
    await rejectWriter.abort();
    throw e;
  }
  const sorted = [...reasons.entries()].sort((x, y) => (x[0] < y[0] ? -1 : 1));
  return {
    records,
    migrated: writer.lines,
    rejected: rejectWriter.lines,
    reasons: Object.fromEntries(sorted),
    out,
    rejects,
    ...(rerun ? { teacher: { rerun: rerun.rerun, written: rerun.written } } : {}),
  };
}

/**
 * `migrate plan -t`: how many records each change touches — the records that call each tool, load
 * each skill or show each hook's feedback — and how many each tool entry stops.
 */
export async function countRecords(plan: MigrationPlan, a: Harness, b: Harness, inputs: readonly string[]): Promise<MigrationPlan> {
  const cp: CompiledPlan = compilePlan(plan, a, b);
  const tools = new Map<string, number>();
  const stops = new Map<string, number>();
  const skills = new Map<string, number>();
  const hooks = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  let records = 0;
  const prefix = a.hookMessages.namePrefix;
  for (const file of inputs) {
    for await (const item of readTrajectories(file)) {
      records++;
      if (!item.ok) continue;
      const seen = { tools: new Set<string>(), skills: new Set<string>(), hooks: new Set<string>() };
      for (const m of item.record.messages) {
        if ((m.role === 'user' || m.role === 'system') && m.name?.startsWith(prefix)) seen.hooks.add(m.name.slice(prefix.length));
        if (m.role !== 'assistant') continue;
        for (const c of m.tool_calls ?? []) {
          seen.tools.add(c.function.name);
          if (a.skillLoader && c.function.name === a.skillLoader.tool) {
            const args = callArgs(c.function);
            const s = args === NOT_JSON ? undefined : getPath(args, a.skillLoader.argument);
            if (typeof s === 'string') seen.skills.add(s);
          }
        }
      }
      for (const t of seen.tools) bump(tools, t);
      for (const s of seen.skills) bump(skills, s);
      for (const h of seen.hooks) bump(hooks, h);
      const stop = migrateRecordStop(item.record, cp, a, b, file, item.line);
      if (stop) bump(stops, stop);
    }
  }
  return {
    ...plan,
    records,
    tools: plan.tools.map((t) => ({ ...t, records: tools.get(t.from) ?? 0, stops: stops.get(t.from) ?? 0 })),
    skills: plan.skills.map((s) => ({ ...s, records: skills.get(s.from) ?? 0 })),
    hooks: plan.hooks.map((h) => ({ ...h, records: hooks.get(h.from) ?? 0 })),
  };
}

/** The A tool whose plan entry stops a record, if one does. */
function migrateRecordStop(rec: Parameters<typeof migrateRecord>[0], cp: CompiledPlan, a: Harness, b: Harness, file: string, line: number): string | null {
  const r = migrateRecord(rec, cp, a, b, { file, line, systemPrompt: 'replace' });
  if (r.ok || !r.reject.entry?.startsWith('tools[')) return null;
  return /\(from: (.*)\)$/.exec(r.reject.entry)?.[1] ?? null;
}
