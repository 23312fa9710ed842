import { UsageError } from '../errors.js';
import { loadHarness } from '../harness/load.js';
import { formatProblem, hasErrors, sortProblems } from '../problems.js';
import { augmentOne, StatePool, type AugmentedVariant } from '../trajectory/augment.js';
import { checkTrajectory } from '../trajectory/check.js';
import { readTrajectories } from '../trajectory/read.js';
import type { Trajectory } from '../trajectory/types.js';
import { netParamRenames } from '../transform/plan.js';
import { loadRegistry } from '../transform/registry.js';
import { resolveTransforms } from '../transform/variant.js';
import type { AnyTransform } from '../transform/define.js';
import { mergeWordLists, type WordLists } from '../transform/words.js';
import { DEFAULTS, readConfigFile } from '../config/augment-config.js';
import { renderTools } from '../harness/render.js';
import { builtinWords } from '../../transforms/index.js';
import type { Io } from './io.js';

export interface PreviewOptions {
  harness: string;
  /** hsa.yaml whose transforms, words and seed are used (flags override). */
  config?: string;
  trajectories: string;
  id: string;
  seed?: string;
  variants?: number;
  transforms?: string[];
  probability?: number;
  /** Shared harness states, as `hsa augment --state-pool` (default: the config's, else 64; 0: a state per variant). */
  statePool?: number;
  plugin?: string[];
  json?: boolean;
}

/**
 * `hsa preview`: K augmented variants of one record, each with its rewrite plan (old → new) and
 * check results — the quickest way to see what the transforms do. The variants are the ones
 * `hsa augment` (rewrite mode) writes for the same config and seed: states from a pool of the same
 * size, slots chosen the same way, the same fallback to a state sampled for the record, through
 * the same function (`augmentOne`, which `variantOf` calls in rewrite mode).
 */
export async function previewCommand(opts: PreviewOptions, io: Io): Promise<number> {
  const registry = await loadRegistry(opts.plugin ?? []);
  const file = opts.config ? await readConfigFile(opts.config) : undefined;
  let selection = buildSelection(opts, registry);
  if (file?.transforms) {
    // Options come from the config; --transforms narrows the set, --probability overrides p.
    const base = opts.transforms ? Object.fromEntries(Object.keys(selection ?? {}).map((id) => [id, file.transforms?.[id] ?? true])) : file.transforms;
    selection = opts.probability === undefined ? base : Object.fromEntries(Object.entries(base).map(([id, o]) => [id, o === false ? false : { ...(typeof o === 'object' && o ? o : {}), p: opts.probability }]));
  }
  const resolved = resolveTransforms(registry, selection, 'rewrite');
  const words = mergeWordLists(builtinWords, file?.words as Partial<WordLists> | undefined);
  const loaded = await loadHarness(opts.harness);
  if (!loaded.harness || hasErrors(loaded.problems)) {
    for (const p of sortProblems(loaded.problems)) io.err(`${formatProblem(p)}\n`);
    io.err(`cannot preview: ${opts.harness} has errors (run hsa validate)\n`);
    return 1;
  }
  const harness = loaded.harness;
  let source: Trajectory | undefined;
  for await (const item of readTrajectories(opts.trajectories)) {
    if (!item.ok) continue;
    if (item.record.id === opts.id) {
      const problems = checkTrajectory(item.record, harness, { file: opts.trajectories, line: item.line });
      if (hasErrors(problems)) {
        for (const p of problems) io.err(`${formatProblem(p)}\n`);
        return 1;
      }
      source = item.record;
      break;
    }
  }
  if (!source) {
    io.err(`${opts.trajectories}: no record with id "${opts.id}"\n`);
    return 1;
  }
  const seed = opts.seed ?? (file?.seed !== undefined ? String(file.seed) : '0');
  const k = opts.variants ?? 3;
  const poolSize = opts.statePool ?? file?.state_pool ?? DEFAULTS.statePool;
  // A pool of N states costs N samplings only for the slots this record's variants pick.
  const pool = poolSize > 0 ? new StatePool(harness, resolved, seed, words, poolSize) : undefined;
  const variants: AugmentedVariant[] = [];
  for (let i = 0; i < k; i++) variants.push(augmentOne(source, harness, resolved, seed, i, words, pool));
  const failed = variants.filter((v) => v.failures.length > 0).length;
  if (opts.json) {
    io.out(
      `${JSON.stringify(
        {
          source: source.id,
          seed,
          state_pool: poolSize,
          transforms: resolved.map((t) => ({ id: t.def.id, version: t.def.version, options: t.options })),
          variants: variants.map((v) => ({
            id: v.id,
            stateHash: v.variant.stateHash,
            slot: v.slot,
            transforms: v.variant.applied,
            plan: { ...v.variant.plan, params: netParamRenames(v.variant.plan).params },
            checks: v.checks,
            ok: v.failures.length === 0,
            record: v.record,
            tools: renderTools(v.variant.state),
          })),
        },
        null,
        2,
      )}\n`,
    );
    return failed ? 1 : 0;
  }
  for (const v of variants) {
    io.out(`== ${v.id}  state ${v.variant.stateHash.slice(0, 12)}${v.slot !== null ? ` (pool slot ${v.slot})` : ''}  ${v.failures.length ? `FAILED (${v.failures.length})` : 'checks passed'}\n`);
    if (v.variant.applied.length === 0) io.out('  no transform applied: the source record as it is\n');
    for (const a of v.variant.applied) io.out(`  ${a.id}@${a.version} (${a.class})\n`);
    const plan = v.variant.plan;
    const table = (title: string, map: Record<string, string>) => {
      const rows = Object.entries(map);
      if (!rows.length) return;
      io.out(`  ${title}:\n`);
      const w = Math.max(...rows.map(([a]) => a.length));
      for (const [a, b] of rows.sort(([x], [y]) => (x < y ? -1 : 1))) io.out(`    ${a.padEnd(w)} → ${b}\n`);
    };
    table('tools', plan.tools);
    table('skills', plan.skills);
    table('hooks', plan.hooks);
    table('sections', plan.sections);
    const { params, reshaped } = netParamRenames(plan);
    for (const [tool, map] of Object.entries(params)) table(`parameters of ${tool}`, map);
    for (const tool of reshaped) io.out(`  arguments of ${tool}: ${JSON.stringify(plan.args[tool])}\n`);
    for (const f of v.failures) io.out(`  ✗ ${f}\n`);
    io.out(`  record: ${JSON.stringify(v.record)}\n\n`);
  }
  io.err(`${variants.length} variant${variants.length === 1 ? '' : 's'} of ${source.id}: ${variants.length - failed} passed every check, ${failed} failed\n`);
  return failed ? 1 : 0;
}

/**
 * `--transforms a,b` selects those transforms with their defaults; without it every exact and
 * semantic transform is on. `--probability p` overrides every selected transform's `p`.
 */
export function buildSelection(
  opts: { transforms?: string[]; probability?: number },
  registry: Readonly<Record<string, AnyTransform>>,
): Record<string, unknown> | undefined {
  const ids = opts.transforms?.flatMap((t) => t.split(',')).map((t) => t.trim()).filter(Boolean);
  for (const id of ids ?? []) if (!(id in registry)) throw new UsageError(`--transforms: unknown transform "${id}" (run hsa transforms)`);
  const chosen = ids ?? Object.values(registry).filter((t) => t.class !== 'behavioural').map((t) => t.id);
  if (opts.probability === undefined) return ids ? Object.fromEntries(ids.map((id) => [id, true])) : undefined;
  if (!(opts.probability >= 0 && opts.probability <= 1)) throw new UsageError('--probability must be between 0 and 1');
  const p = opts.probability;
  return Object.fromEntries(chosen.map((id) => [id, { p }]));
}
