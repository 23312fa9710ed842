import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { HsaError, UnreadableInputError, UsageError } from '../errors.js';
import { loadHarness } from '../harness/load.js';
import type { Harness } from '../harness/types.js';
import { formatProblem, hasErrors, sortProblems } from '../problems.js';
import type { SystemPromptMode } from '../trajectory/check.js';
import { expandInputs } from '../util/inputs.js';
import type { Io } from './io.js';
import type { ApplyTeacher } from '../migrate/run.js';

export interface MigratePlanOptions {
  from: string;
  to: string;
  trajectories?: string[];
  out?: string;
  /** An OpenAI-compatible endpoint asked for matches inference left open (shown as proposals). */
  modelUrl?: string;
  model?: string;
  cache?: string;
}

export interface MigrateApplyOptions {
  plan: string;
  to?: string;
  from?: string;
  trajectories: string[];
  out: string;
  rejects?: string;
  systemPrompt?: SystemPromptMode;
  json?: boolean;
  teacher?: 'openai';
  teacherUrl?: string;
  teacherModel?: string;
  teacherKeyEnv?: string;
  consistency?: 'exact' | 'superset' | 'any';
  cache?: string;
}

export interface MigrateDiffOptions {
  from: string;
  to: string;
  json?: boolean;
  html?: string;
  color?: boolean;
  width?: number;
}

/** Load a snapshot that must be valid (a migration between broken harnesses proves nothing). */
async function loadValid(where: string, role: 'A' | 'B'): Promise<Harness> {
  const loaded = await loadHarness(where);
  if (!loaded.harness || hasErrors(loaded.problems)) {
    const lines = sortProblems(loaded.problems.filter((p) => p.severity === 'error')).map(formatProblem);
    throw new HsaError('HSA_BAD_HARNESS', `${where}: harness ${role} has errors:\n${lines.join('\n')}`, 1);
  }
  return loaded.harness;
}

/** `hsa migrate plan --from A --to B [-t logs] [-o plan.yaml]`: infer the plan between two versions. */
export async function migratePlanCommand(opts: MigratePlanOptions, io: Io): Promise<number> {
  const [{ inferPlan }, { planToYaml }] = await Promise.all([import('../migrate/infer.js'), import('../migrate/plan-file.js')]);
  const [a, b] = await Promise.all([loadValid(opts.from, 'A'), loadValid(opts.to, 'B')]);
  let plan = inferPlan(a, b);
  if (opts.modelUrl) {
    const { proposeMatches } = await import('../migrate/propose.js');
    plan = await proposeMatches(plan, a, b, { url: opts.modelUrl, model: opts.model ?? 'default', cache: opts.cache ?? '.hsa/migrate-cache' }, (line: string) =>
      io.err(`${line}\n`),
    );
  }
  if (opts.trajectories?.length) {
    const { countRecords } = await import('../migrate/run.js');
    plan = await countRecords(plan, a, b, await expandInputs(opts.trajectories, '--trajectories'));
  }
  // Paths are written relative to the plan's folder, so a committed plan works from any checkout.
  const base = opts.out ? path.dirname(path.resolve(opts.out)) : process.cwd();
  const rel = (p: string) => path.relative(base, path.resolve(p)).split(path.sep).join('/') || '.';
  plan = { ...plan, from: { ...plan.from, path: rel(opts.from) }, to: { ...plan.to, path: rel(opts.to) } };
  const yaml = planToYaml(plan);
  if (opts.out) {
    await writeFile(opts.out, yaml);
    const removed = plan.tools.filter((t) => !t.map && !t.split).length;
    io.err(
      `${opts.out}: ${plan.tools.length} tools (${removed} removed, ${plan.added.tools.length} added), ${plan.skills.length} skills, ${plan.hooks.length} hooks, ${plan.sections.length} sections${plan.proposals.length ? `, ${plan.proposals.length} proposals` : ''}\n`,
    );
  } else io.out(yaml);
  return 0;
}

/** `hsa migrate apply --plan plan.yaml [--to B] -t logs -o migrated.jsonl`: carry records into B, each proved. */
export async function migrateApplyCommand(opts: MigrateApplyOptions, io: Io): Promise<number> {
  // The engine (~60 modules and zod) loads while the plan and both harnesses are read and checked:
  // its file reads fill the loader's waits. (A failed import is reported where it is awaited.)
  const engine = import('../migrate/run.js');
  engine.catch(() => undefined);
  const [{ parsePlan }, { readFile }, { parseLocated, isParseFailure }] = await Promise.all([
    import('../migrate/plan-file.js'),
    import('node:fs/promises'),
    import('../util/located.js'),
  ]);
  // The plan names its snapshots; --from/--to override (a snapshot moved since the plan was made).
  // It is parsed once: its paths are read first, the whole of it once both harnesses are loaded.
  let text: string;
  try {
    text = await readFile(opts.plan, 'utf8');
  } catch {
    throw new UnreadableInputError(`${opts.plan}: cannot read the plan file`);
  }
  const doc = parseLocated(opts.plan, text);
  const value = isParseFailure(doc) ? undefined : doc.value;
  const head = (value !== null && typeof value === 'object' ? value : {}) as { from?: { path?: unknown }; to?: { path?: unknown } };
  const planDir = path.dirname(opts.plan);
  const fromPath = opts.from ?? (typeof head.from?.path === 'string' ? path.join(planDir, head.from.path) : undefined);
  const toPath = opts.to ?? (typeof head.to?.path === 'string' ? path.join(planDir, head.to.path) : undefined);
  if (!fromPath) throw new UsageError('migrate apply: the plan names no path for harness A (from.path); give --from');
  if (!toPath) throw new UsageError('migrate apply: give --to (harness B)');
  const [a, b] = await Promise.all([loadValid(fromPath, 'A'), loadValid(toPath, 'B')]);
  const plan = parsePlan(opts.plan, doc, a, b);
  const inputs = await expandInputs(opts.trajectories, '--trajectories');
  const rejects = opts.rejects ?? `${opts.out.replace(/\.jsonl$/, '')}.rejects.jsonl`;
  const teacher = opts.teacher ? await applyTeacher(opts) : undefined;
  const { applyPlan } = await engine;
  const summary = await applyPlan(plan, a, b, inputs, opts.out, rejects, {
    ...(opts.systemPrompt ? { systemPrompt: opts.systemPrompt } : {}),
    ...(teacher ? { teacher } : {}),
  });
  if (opts.json) io.out(`${JSON.stringify(summary, null, 2)}\n`);
  else {
    const kinds = Object.entries(summary.reasons)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ');
    const taught = summary.teacher ? `; the teacher re-ran ${summary.teacher.rerun}, ${summary.teacher.written} written` : '';
    io.out(
      `${summary.records} records: ${summary.migrated} migrated to ${b.name} ${b.version} (${summary.out}), ${summary.rejected} rejected (${summary.rejects}${kinds ? `: ${kinds}` : ''})${taught}\n`,
    );
  }
  return 0;
}

/** `--teacher openai`: the engine's OpenAI client and answer cache, one episode attempt per record. */
async function applyTeacher(opts: MigrateApplyOptions): Promise<ApplyTeacher> {
  if (!opts.teacherUrl) throw new UsageError('migrate apply: --teacher openai needs --teacher-url');
  if (!opts.teacherModel) throw new UsageError('migrate apply: --teacher openai needs --teacher-model');
  const [{ OpenAiTeacher }, { TeacherCache, defaultCacheDir }, { newCounters }] = await Promise.all([
    import('../teacher/openai.js'),
    import('../llm/cache.js'),
    import('../llm/errors.js'),
  ]);
  const client = new OpenAiTeacher(
    { baseUrl: opts.teacherUrl, model: opts.teacherModel, apiKeyEnv: opts.teacherKeyEnv ?? 'OPENAI_API_KEY', timeoutMs: 60_000, maxRetries: 5 },
    new TeacherCache(opts.cache ?? defaultCacheDir()),
    { requireCache: false, counters: newCounters() },
  );
  return { teacher: client, options: { consistency: opts.consistency ?? 'exact', maxRounds: 'auto', maxCallRetries: 0, maxAttempts: 1 } };
}

/** `hsa migrate diff A B`: the change between two versions as a reviewer reads it. */
export async function migrateDiffCommand(opts: MigrateDiffOptions, io: Io): Promise<number> {
  const [{ inferPlan }, { buildDiff, diffHtml, formatDiff }] = await Promise.all([import('../migrate/infer.js'), import('../migrate/diff.js')]);
  const [a, b] = await Promise.all([loadValid(opts.from, 'A'), loadValid(opts.to, 'B')]);
  const view = buildDiff(inferPlan(a, b), a, b);
  if (opts.html) await writeFile(opts.html, diffHtml(view));
  if (opts.json) {
    io.out(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  }
  const tty = Boolean(process.stdout.isTTY);
  const color = opts.color ?? (tty && !process.env.NO_COLOR);
  io.out(formatDiff(view, { color, width: opts.width ?? (tty ? (process.stdout.columns ?? 160) : 160) }));
  return 0;
}
