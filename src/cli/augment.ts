import { setMaxListeners } from 'node:events';
import { resolveRunConfig, type AugmentFlags, type RunConfig } from '../config/augment-config.js';
import { runAugment } from '../output/run.js';
import type { Io } from './io.js';
import { progressReporter } from './progress.js';
import { newCounters } from '../llm/errors.js';
import type { Shard } from '../output/out-folder.js';
import type { MakePartPool } from '../output/part-pool.js';
import { forBatchEngine, resolveShard, type ShardFlags } from '../scale/shard.js';
import { UsageError } from '../errors.js';

/** `hsa augment`: build SFT / OPD / RL shards with a manifest. */
export async function augmentCommand(
  flags: AugmentFlags & ShardFlags & { check?: string | boolean; workers?: number },
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // A shard's failures are sorted for its batch engine: exit 42 = do not retry, others retryable.
  let shard: Shard | undefined;
  let cfg: RunConfig;
  try {
    // `--check DIR` names the folder to compare: no --out is needed beside it (the fresh run goes
    // to a temporary folder either way).
    cfg = await resolveRunConfig(typeof flags.check === 'string' && flags.out === undefined ? { ...flags, out: flags.check } : flags);
    shard = resolveShard(flags, env, cfg.shards);
  } catch (e) {
    const sharded =
      flags.shardIndex !== undefined ||
      flags.numShards !== undefined ||
      ['HSA_SHARD_INDEX', 'JOB_COMPLETION_INDEX', 'SLURM_ARRAY_TASK_ID'].some((k) => env[k] !== undefined);
    throw sharded ? forBatchEngine(e) : e;
  }
  if (!shard) return augmentWhole(cfg, flags, io);
  try {
    return await augmentWhole(cfg, flags, io, shard);
  } catch (e) {
    throw forBatchEngine(e);
  }
}

async function augmentWhole(cfg: RunConfig, flags: AugmentFlags & { check?: string | boolean; workers?: number }, io: Io, shard?: Shard): Promise<number> {
  if (shard && flags.check) throw new UsageError('--check compares a whole run; run it without a shard index');
  if (flags.check) {
    // CI: regenerate into a temporary folder and compare; exit 0 nothing drifted, 1 something did.
    const target = typeof flags.check === 'string' ? flags.check : cfg.out;
    // Loaded only for --check (the diff and report modules are not part of a run).
    const [{ runCheck }, { formatDiff }] = await Promise.all([import('../review/check.js'), import('../review/diff-report.js')]);
    const report = await runCheck(cfg, target, { warn: (line) => void (flags.quiet ? undefined : io.err(`${line}\n`)) });
    if (flags.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
    else
      io.out(
        report.identical
          ? `${target}: up to date (a fresh run gives the same manifest and records)\n`
          : `${target}: drifted from what the inputs, config, seed and code give now:\n${formatDiff(report)}`,
      );
    return report.identical ? 0 : 1;
  }
  const counters = newCounters();
  const progress = progressReporter(io, flags.quiet === true || flags.json === true, cfg.teacher.mode === 'openai' ? counters : undefined);
  const started = Date.now();
  // Ctrl-C stops cleanly: in-flight requests are aborted, the open part is dropped, finished
  // parts stay; the same command resumes.
  const controller = new AbortController();
  // Every in-flight request and backoff listens to this one signal.
  setMaxListeners(0, controller.signal);
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let summary;
  try {
    summary = await runAugment(cfg, {
      force: flags.force === true,
      onProgress: (p) => progress.update(p),
      warn: (line) => {
        if (!flags.quiet) io.err(`${line}\n`);
      },
      signal: controller.signal,
      counters,
      ...(shard ? { shard } : {}),
      // Worker threads are loaded only by a run that asks for them (rewrite mode: teacher modes ignore --workers).
      ...(flags.workers !== undefined && flags.workers > 1 && cfg.teacher.mode === 'rewrite' ? { pool: await workerPool(flags.workers, cfg) } : {}),
    });
  } finally {
    process.removeListener('SIGINT', onSigint);
    progress.done();
  }
  const requests =
    cfg.teacher.mode === 'openai'
      ? { requests: counters.done, cache_hits: counters.cacheHits, retries: counters.retries, failed_requests: counters.failures }
      : {};
  const t = summary.totals;
  if (flags.json) {
    io.out(`${JSON.stringify({ ok: true, ...summary, ...(cfg.teacher.mode === 'openai' ? { teacher_requests: requests } : {}) }, null, 2)}\n`);
  } else if (!flags.quiet) {
    const stages = Object.entries(summary.stages)
      .map(([s, v]) => `${s} ${v.records}`)
      .join(', ');
    io.err(
      `${summary.resumed ? 'resumed' : 'done'}: ${t.input_records} input records (${t.rejected_records} rejected), ${t.variants_written} of ${t.variants_expected} variants written (${t.variants_rejected} rejected)${t.kept_sources ? ` + ${t.kept_sources} sources kept` : ''}\n` +
        `  records: ${stages}\n` +
        `  bytes: ${sizeLine(summary.size)}\n` +
        (t.prompts_located + t.prompts_replaced + t.reused_call_ids > 0
          ? `  system prompts (${cfg.systemPrompt}): ${t.prompts_matched} matched, ${t.prompts_located} located, ${t.prompts_replaced} replaced${t.prompts_replaced ? ` (${t.prompt_chars_discarded} characters dropped)` : ''}; reused tool-call ids made unique: ${t.reused_call_ids}\n`
          : '') +
        (cfg.teacher.mode === 'openai'
          ? `  teacher: ${counters.done} requests, ${counters.cacheHits} cache hits, ${counters.retries} retries, ${counters.tokensIn} tokens in / ${counters.tokensOut} out\n`
          : '') +
        (cfg.teacher.mode !== 'rewrite' ? `  recovery: ${recoveryLine(summary.teacher)}\n` : '') +
        (t.sft_without_assistant
          ? `  ${t.sft_without_assistant} SFT records without an assistant turn ${cfg.sft.skipWithoutAssistant ? 'skipped to rejects' : 'written (--skip-empty-sft skips them)'}\n`
          : '') +
        tokenLines(summary.tokens) +
        (Object.keys(summary.rejectReasons).length
          ? `  rejects: ${Object.entries(summary.rejectReasons)
              .map(([r, n]) => `${r} ×${n}`)
              .join(', ')}\n`
          : '') +
        (summary.shard
          ? `  shard ${summary.shard.index} of ${summary.shard.count} (from ${summary.shard.from}): parts ${summary.shard.parts.join(', ') || 'none'} of ${summary.shard.partsTotal}; hsa merge ${cfg.out} writes the manifest once every shard is done\n`
          : '') +
        `  ${summary.manifest ?? 'no manifest yet'} (${summary.partsSkipped} parts resumed) in ${((Date.now() - started) / 1000).toFixed(1)}s\n`,
    );
  }
  return 0;
}

/** `12.4 MB written for 0.9 MB read (13.781 bytes per input byte)` (MB = 2^20 bytes). */
function sizeLine(size: { input_bytes: number; output_bytes: number; bytes_per_input_byte: number }): string {
  const mb = (n: number) => `${(n / 2 ** 20).toFixed(1)} MB`;
  return `${mb(size.output_bytes)} written for ${mb(size.input_bytes)} read (${size.bytes_per_input_byte} bytes per input byte)`;
}

/** `3 call retries (teacher_invalid_call ×2, …), 1 episode re-run, 2 variants recovered`. */
function recoveryLine(teacher: Record<string, unknown>): string {
  const n = (k: string) => (typeof teacher[k] === 'number' ? teacher[k] : 0);
  const byKind = Object.entries((teacher.recovery ?? {}) as Record<string, number>);
  const kinds = (prefix: string) =>
    byKind
      .filter(([k]) => k.startsWith(prefix))
      .map(([k, v]) => `${k.slice(prefix.length)} ×${v}`)
      .join(', ');
  const retries = kinds('call_retry.');
  const reruns = kinds('rerun.');
  return `${n('call_retries')} call retries${retries ? ` (${retries})` : ''}, ${n('episode_reruns')} episode re-runs${reruns ? ` (${reruns})` : ''}, ${n('recovered_variants')} variants recovered`;
}

/** `  tokens (qwen3): sft min 1,203 · p50 2,950 · p95 4,010 · max 5,100, 12 over 3,000` */
function tokenLines(tokens: Record<string, unknown> | undefined): string {
  if (!tokens) return '';
  const t = tokens as {
    tokenizer: { name: string };
    max_tokens: number | null;
    stages: Record<string, { records: number; min?: number; p50?: number; p95?: number; max?: number; too_long: number }>;
  };
  const f = (n: number | undefined) => (n ?? 0).toLocaleString('en-US');
  const parts = Object.entries(t.stages).map(
    ([stage, s]) =>
      `${stage} min ${f(s.min)} · p50 ${f(s.p50)} · p95 ${f(s.p95)} · max ${f(s.max)}${t.max_tokens !== null ? `, ${f(s.too_long)} over ${f(t.max_tokens)}` : ''}`,
  );
  return `  tokens (${t.tokenizer.name}): ${parts.join('; ')}\n`;
}

/** `--workers N`: the run's parts written on up to N threads (the main thread and N − 1 workers). */
async function workerPool(size: number, cfg: RunConfig): Promise<MakePartPool> {
  return (await import('../scale/workers.js')).workerPool(size, cfg);
}
