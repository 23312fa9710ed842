import type { Harness } from '../harness/types.js';
import type { Consistency } from '../episode/options.js';
import { runEpisode } from '../teacher/runtime.js';
import type { Teacher } from '../teacher/types.js';
import { checkTrajectory } from '../trajectory/check.js';
import { checkLeaks } from '../trajectory/invariants.js';
import type { ToolCall, Trajectory } from '../trajectory/types.js';
import { callBack, type MigrateRejectKind } from './apply.js';
import type { CompiledPlan } from './compile.js';

/**
 * The rejects `--teacher` re-runs under B: a removed tool, a value the plan cannot supply, a
 * failed check. A record that does not validate under A, loads a removed skill or shows a removed
 * hook's feedback, or whose prompt has no place in B, stays rejected (the teacher would have
 * nothing to replay it against).
 */
export const TEACHER_RERUN_KINDS: ReadonlySet<MigrateRejectKind> = new Set([
  'removed_tool',
  'no_value',
  'check_invalid_call',
  'check_leak',
  'check_round_trip',
  'check_bytes',
]);

export interface TeacherRerunOptions {
  consistency: Consistency;
  maxRounds: number | 'auto';
  maxCallRetries: number;
  maxAttempts: number;
  file: string;
  line: number;
}

export type TeacherRerun = { ok: true; record: Trajectory } | { ok: false; reason: string };

/**
 * Re-run one rejected record under B with a teacher (the engine's episode runtime): B's prompt and
 * tools, the source's user turns, each call the teacher makes answered with the recorded result of
 * the source call it maps back to through the plan (splits, values and fills included; a value B
 * requires and A never had is the teacher's to give). The episode's own checks apply (calls valid
 * under B, no old name, calls consistent with the source), then the record's proofs under B: it
 * validates against B as `hsa validate` says, leaks no name of A alone, and keeps the user's words.
 */
export async function rerunWithTeacher(
  source: Trajectory,
  cp: CompiledPlan,
  a: Harness,
  b: Harness,
  teacher: Teacher,
  variantId: string,
  opts: TeacherRerunOptions,
): Promise<TeacherRerun> {
  const mapCallBack = (call: ToolCall): ToolCall | null => {
    const back = callBack(call, cp, a, b, cp.skillsBack, true);
    return back ? { id: back.id, type: 'function', function: { name: back.name, arguments: JSON.stringify(back.args) } } : null;
  };
  const r = await runEpisode(source, a, b, cp.leakPlan, variantId, teacher, {
    consistency: opts.consistency,
    maxRoundsPerTurn: opts.maxRounds,
    maxCallRetries: opts.maxCallRetries,
    maxAttempts: opts.maxAttempts,
    mapCallBack,
  });
  if (r.status !== 'accepted') return { ok: false, reason: `${r.kind}: ${r.reason}` };
  const record: Trajectory = { ...r.trajectory };
  if (record.harness) record.harness = { name: b.name, version: b.version };
  const leaks = checkLeaks(record, cp.leakPlan, a, b).filter((x) => !STATE_PLACE.test(x));
  if (leaks.length) return { ok: false, reason: `check_leak: ${leaks[0]}` };
  const said = (t: Trajectory) => t.messages.filter((m) => m.role === 'user' && m.name === undefined).map((m) => JSON.stringify(m.content));
  const want = said(source);
  // The runtime leaves out trailing turns the source never answered: the written turns are a prefix.
  const got = said(record);
  if (got.length > want.length || got.some((x, i) => x !== want[i])) return { ok: false, reason: "check_bytes: the user's words changed" };
  const underB = checkTrajectory({ ...record, messages: [...record.messages] }, b, { file: opts.file, line: opts.line, systemPrompt: 'match' });
  const bad = underB.find((p) => p.severity === 'error');
  if (bad) return { ok: false, reason: `check_invalid_call: under B: ${bad.path}: ${bad.message}` };
  return { ok: true, record };
}

/** The places the engine names by state path: B's own text, not the migration's (as in apply.ts). */
const STATE_PLACE = /^(prompt\.[^:]+|tools\.[^.:\s]+\.(description|parameters)|skills\.[^:]+\.body|hooks\.[^:]+\.feedback): mentions old name /;
