import { UsageError } from '../errors.js';
import { formatProblem, hasErrors } from '../problems.js';
import { augmentOne, type AugmentedVariant } from '../trajectory/augment.js';
import { checkTrajectory } from '../trajectory/check.js';
import { readTrajectories } from '../trajectory/read.js';
import type { Trajectory } from '../trajectory/types.js';
import type { Harness } from '../harness/types.js';
import { netParamRenames } from '../transform/plan.js';
import { loadRegistry } from '../transform/registry.js';
import type { AnyTransform } from '../transform/define.js';
import { INLINE_HARNESS, resolveRunConfig } from '../config/augment-config.js';
import { renderTools } from '../harness/render.js';
import { loadRunInputs } from '../output/setup.js';
import { inlineHarnessesFor, statePoolFor } from '../output/variants.js';
import type { StatePool } from '../trajectory/augment.js';
import type { Io } from './io.js';

export interface PreviewOptions {
  /** Harness folder or YAML file; omitted: the config's harness, else the record's own (inline). */
  harness?: string;
  /** hsa.yaml whose transforms, words, seed, system_prompt and split are used (flags override). */
  config?: string;
  trajectories: string;
  id: string;
  seed?: string;
  variants?: number;
  transforms?: string[];
  probability?: number;
  /** Shared harness states, as `hsa augment --state-pool` (default: the config's, else 64; 0: a state per variant). */
  statePool?: number;
  /** As `hsa augment --system-prompt`. */
  systemPrompt?: string;
  /** As `hsa augment --words`. */
  words?: string[];
  /** As `hsa augment --split`. */
  split?: string;
  plugin?: string[];
  json?: boolean;
}

/**
 * `hsa preview`: K augmented variants of one record, each with its rewrite plan (old → new) and
 * check results — the quickest way to see what the transforms do. The variants are the ones
 * `hsa augment` (rewrite mode) writes for the same config and seed: the run config is resolved by
 * the same function (harness or inline harnesses, `system_prompt`, word packs, split, plugins),
 * the record is checked the same way, states come from a pool of the same size and seed (an
 * inline harness's pool is seeded by its hash, as in augment), slots are chosen the same way, with
 * the same fallback to a state sampled for the record, through the same function (`augmentOne`,
 * which `variantOf` calls in rewrite mode). A variant is `ok` exactly when augment would write it.
 */
export async function previewCommand(opts: PreviewOptions, io: Io): Promise<number> {
  const registry = await loadRegistry(opts.plugin ?? []);
  // Unknown ids in --transforms are named before anything is read.
  buildSelection({ ...(opts.transforms ? { transforms: opts.transforms } : {}) }, registry);
  const cfg = await resolveRunConfig({
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.harness ? { harness: opts.harness } : {}),
    trajectories: [opts.trajectories],
    // Preview writes nothing; augment's config needs an output folder.
    out: '.',
    ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
    ...(opts.transforms?.length ? { transforms: opts.transforms } : {}),
    ...(opts.statePool !== undefined ? { statePool: opts.statePool } : {}),
    ...(opts.systemPrompt ? { systemPrompt: opts.systemPrompt } : {}),
    ...(opts.words?.length ? { words: opts.words } : {}),
    ...(opts.split ? { split: opts.split } : {}),
    ...(opts.plugin?.length ? { plugin: opts.plugin } : {}),
  });
  if (opts.probability !== undefined) {
    // --probability overrides p of every selected transform (all exact and semantic ones when none is selected).
    const chosen = cfg.transforms ?? buildSelection({ probability: opts.probability }, registry)!;
    cfg.transforms = buildSelection({ probability: opts.probability }, registry, chosen);
  }
  const { transforms, words, harness: runHarness } = await loadRunInputs(cfg, (line) => io.err(`${line}\n`), true);
  const inline = cfg.harness === INLINE_HARNESS ? inlineHarnessesFor(cfg, transforms, words) : undefined;
  let found: { source: Trajectory; harness: Harness; pool: StatePool | undefined } | undefined;
  for await (const item of readTrajectories(opts.trajectories)) {
    if (!item.ok || item.record.id !== opts.id) continue;
    const at = { file: opts.trajectories, line: item.line };
    let harness = runHarness;
    let pool: StatePool | undefined;
    if (inline) {
      const own = inline.for(item.record, at);
      if (!own.inline.harness) {
        for (const p of own.inline.problems) io.err(`${formatProblem(p)}\n`);
        return 1;
      }
      harness = own.inline.harness;
      pool = own.extra;
    } else pool = statePoolFor(cfg, harness, transforms, words);
    const problems = checkTrajectory(item.record, harness, { ...at, systemPrompt: cfg.systemPrompt, outcome: {} });
    if (hasErrors(problems)) {
      for (const p of problems) io.err(`${formatProblem(p)}\n`);
      return 1;
    }
    found = { source: item.record, harness, pool };
    break;
  }
  if (!found) {
    io.err(`${opts.trajectories}: no record with id "${opts.id}"\n`);
    return 1;
  }
  const { source, harness, pool } = found;
  const { seed } = cfg;
  const poolSize = cfg.statePool;
  const k = opts.variants ?? 3;
  const variants: AugmentedVariant[] = [];
  for (let i = 0; i < k; i++) variants.push(augmentOne(source, harness, transforms, seed, i, words, pool));
  // augment rejects a variant whose checks fail, or whose record's own prompt text names an old name.
  const failuresOf = (v: AugmentedVariant) => [...v.failures, ...v.promptText];
  const failed = variants.filter((v) => failuresOf(v).length > 0).length;
  if (opts.json) {
    io.out(
      `${JSON.stringify(
        {
          source: source.id,
          seed,
          state_pool: poolSize,
          ...(cfg.harness === INLINE_HARNESS ? { harness: { name: harness.name, version: harness.version } } : {}),
          transforms: transforms.map((t) => ({ id: t.def.id, version: t.def.version, options: t.options })),
          variants: variants.map((v) => ({
            id: v.id,
            stateHash: v.variant.stateHash,
            slot: v.slot,
            transforms: v.variant.applied,
            plan: { ...v.variant.plan, params: netParamRenames(v.variant.plan).params },
            checks: v.checks,
            ok: failuresOf(v).length === 0,
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
    io.out(
      `== ${v.id}  state ${v.variant.stateHash.slice(0, 12)}${v.slot !== null ? ` (pool slot ${v.slot})` : ''}  ${failuresOf(v).length ? `FAILED (${failuresOf(v).length})` : 'checks passed'}\n`,
    );
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
    for (const f of failuresOf(v)) io.out(`  ✗ ${f}\n`);
    io.out(`  record: ${JSON.stringify(v.record)}\n\n`);
  }
  io.err(`${variants.length} variant${variants.length === 1 ? '' : 's'} of ${source.id}: ${variants.length - failed} passed every check, ${failed} failed\n`);
  return failed ? 1 : 0;
}

/**
 * `--transforms a,b` selects those transforms with their defaults; without it every exact and
 * semantic transform is on. `--probability p` overrides every selected transform's `p`; `base`
 * (a resolved selection) keeps its options and ids switched off.
 */
export function buildSelection(
  opts: { transforms?: string[]; probability?: number },
  registry: Readonly<Record<string, AnyTransform>>,
  base?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const ids = opts.transforms
    ?.flatMap((t) => t.split(','))
    .map((t) => t.trim())
    .filter(Boolean);
  for (const id of ids ?? []) if (!(id in registry)) throw new UsageError(`--transforms: unknown transform "${id}" (run hsa transforms)`);
  const chosen =
    ids ??
    Object.values(registry)
      .filter((t) => t.class !== 'behavioural')
      .map((t) => t.id);
  if (opts.probability === undefined) return ids ? Object.fromEntries(ids.map((id) => [id, true])) : undefined;
  if (!(opts.probability >= 0 && opts.probability <= 1)) throw new UsageError('--probability must be between 0 and 1');
  const p = opts.probability;
  if (base) return Object.fromEntries(Object.entries(base).map(([id, o]) => [id, o === false ? false : { ...(typeof o === 'object' && o ? o : {}), p }]));
  return Object.fromEntries(chosen.map((id) => [id, { p }]));
}
