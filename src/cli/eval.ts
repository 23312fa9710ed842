import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { resolveRunConfig } from '../config/augment-config.js';
import { runAugment } from '../output/run.js';
import { UsageError } from '../errors.js';
import { readRewardConfig } from '../episode/reward-config.js';
import type { EpisodeRow } from '../episode/row.js';
import { defaultCacheDir } from '../llm/cache.js';
import { newCounters } from '../llm/errors.js';
import { compareHtml, compareReport, compareText, type HarnessRows } from '../eval/compare.js';
import { readEvalConfig, type EvalConfigFile } from '../eval/config.js';
import { judgeSettings } from '../config/judge-settings.js';
import { replyJudge, RubricJudge } from '../llm/judge.js';
import { runModel, type ModelSettings, type RunModelOptions } from '../eval/model.js';
import { buildReport, reportHtml, reportText } from '../eval/report.js';
import { loadEvalSet, setFiles, type EvalRow } from '../eval/set.js';
import { resolveCounter } from './env.js';
import type { Io } from './io.js';

export interface EvalOptions {
  config?: string;
  set?: string[];
  harness?: string[];
  trajectories?: string[];
  modelUrl?: string;
  model?: string;
  keyEnv?: string;
  concurrency?: number;
  cache?: string;
  requireCache?: boolean;
  maxRetries?: number;
  timeout?: number;
  temperature?: number;
  maxTokens?: number;
  rewardConfig?: string;
  tokenizer?: string;
  /** `--no-judge`: reference token F1 for reply quality even when the config has a judge. */
  judge?: boolean;
  votes?: number;
  bootstrap?: number;
  bootstrapSeed?: string;
  failBelow?: number;
  tolerance?: number;
  json?: boolean;
  html?: string;
  quiet?: boolean;
}

function modelSettings(o: EvalOptions, c: EvalConfigFile): ModelSettings {
  const m = c.model ?? {};
  const baseUrl = o.modelUrl ?? m.base_url;
  const model = o.model ?? m.model;
  if (!baseUrl) throw new UsageError('--model-url: required (or model.base_url in --config)');
  if (!model) throw new UsageError('--model: required (or model.model in --config)');
  const temperature = o.temperature ?? m.temperature;
  const maxTokens = o.maxTokens ?? m.max_tokens;
  return {
    baseUrl,
    model,
    apiKeyEnv: o.keyEnv ?? m.api_key_env ?? 'OPENAI_API_KEY',
    ...(temperature !== undefined ? { temperature } : {}),
    ...(m.top_p !== undefined ? { topP: m.top_p } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(m.seed !== undefined ? { seed: m.seed } : {}),
    ...(m.extra_body ? { extraBody: m.extra_body } : {}),
    timeoutMs: (o.timeout ?? m.timeout_s ?? 60) * 1000,
    maxRetries: o.maxRetries ?? m.max_retries ?? 5,
    ...(m.rpm ? { rpm: m.rpm } : {}),
    ...(m.tpm ? { tpm: m.tpm } : {}),
  };
}

/**
 * `hsa eval`: run a model through every episode of an eval set (RL rows with their `~src` source
 * rows) and report its score and every reward component under the source harness and under the
 * variants, with the robustness gap per transform family, transform, skill and intent; or, with
 * two `--harness` and `--trajectories`, the same dev records under harness A and B side by side.
 * The report goes to stdout (text or `--json`) and to `--html FILE`; counters go to stderr, so a
 * warm rerun's report is byte-identical. Exit 1 when a row could not be run.
 */
export async function evalCommand(o: EvalOptions, io: Io): Promise<number> {
  const c = o.config ? await readEvalConfig(o.config) : {};
  const model = modelSettings(o, c);
  const reward = await readRewardConfig(o.rewardConfig ?? c.reward_config);
  const counter = await resolveCounter(o.tokenizer ?? c.tokenizer, reward.tokenizer, io);
  const cacheDir = o.cache ?? c.cache ?? defaultCacheDir();
  const samples = o.bootstrap ?? c.bootstrap?.samples ?? 1000;
  const seed = String(o.bootstrapSeed ?? c.bootstrap?.seed ?? '0');
  const concurrency = o.concurrency ?? c.concurrency ?? 4;
  const requireCache = o.requireCache ?? c.require_cache ?? false;
  const judgeCounters = newCounters();
  const rowsById = new Map<string, EpisodeRow>();
  const judge =
    c.judge && o.judge !== false
      ? new RubricJudge(await judgeSettings(c.judge, o.votes !== undefined ? { votes: o.votes } : {}), cacheDir, judgeCounters, requireCache)
      : undefined;
  const runOpts: RunModelOptions = {
    concurrency,
    reward,
    counter,
    cacheDir,
    requireCache,
    ...(judge ? { judge: replyJudge(judge, (id) => rowsById.get(id)) } : {}),
  };
  const index = (rows: EvalRow[]) => rows.forEach((r) => rowsById.set(r.row.id, r.row));
  const harnesses = o.harness ?? [];
  let text: string;
  let json: unknown;
  let html: string;
  let errors = 0;
  let requests = 0;
  let hits = 0;
  if (harnesses.length > 0) {
    if (harnesses.length !== 2) throw new UsageError(`--harness: give exactly two (A and B), not ${harnesses.length}`);
    if (!o.trajectories?.length) throw new UsageError('--trajectories: required with --harness A --harness B (the dev records)');
    if (o.set?.length) throw new UsageError('--set: not with --harness A --harness B (the rows are built from --trajectories)');
    const a = await rowsUnderHarness(harnesses[0]!, o.trajectories, 'a');
    const b = await rowsUnderHarness(harnesses[1]!, o.trajectories, 'b');
    // Row ids are the same under both harnesses; the judge finds evidence by id, and the tool
    // results a reply must be grounded in are the recorded ones either way (A's are kept).
    index(b.rows);
    index(a.rows);
    const ra = await runModel(a.rows, model, runOpts);
    const rb = await runModel(b.rows, model, runOpts);
    const report = compareReport(
      { rows: a, outcomes: ra.outcomes },
      { rows: b, outcomes: rb.outcomes },
      { model, samples, seed, tolerance: o.tolerance ?? 0.05 },
    );
    errors = [...ra.outcomes, ...rb.outcomes].filter((x) => x.error).length;
    requests = ra.counters.done + rb.counters.done;
    hits = ra.counters.cacheHits + rb.counters.cacheHits;
    text = compareText(report);
    json = report;
    html = compareHtml(report);
  } else {
    const patterns = o.set ?? c.set;
    if (!patterns?.length)
      throw new UsageError('--set: required (RL parts or output folders written with --keep-source), or --harness A --harness B --trajectories');
    const files = await setFiles(patterns);
    const rows = await loadEvalSet(files);
    if (rows.length === 0) throw new UsageError(`--set: no rows in ${files.join(', ')}`);
    if (!rows.some((r) => r.variant === 'src'))
      throw new UsageError(
        `--set: no source rows (SOURCE~src) in ${files.join(', ')}: the gap compares each variant with its source, so build the set with \`hsa augment --keep-source\``,
      );
    index(rows);
    const { outcomes, counters } = await runModel(rows, model, runOpts);
    const report = buildReport(
      outcomes,
      { files, model, samples, seed, failBelow: o.failBelow ?? c.fail_below ?? 0.5 },
      judge
        ? `judge ${judge.settings.endpoint.model} (rubric ${judge.settings.rubric.name}, k=${judge.settings.votes}, ${judge.settings.aggregate})`
        : 'reference token F1',
    );
    errors = report.set.errors;
    requests = counters.done;
    hits = counters.cacheHits;
    text = reportText(report);
    json = report;
    html = reportHtml(report);
  }
  if (judge) await judge.settle();
  io.out(o.json ? `${JSON.stringify(json, null, 2)}\n` : text);
  if (o.html) await writeFile(o.html, html);
  if (!o.quiet)
    io.err(
      `hsa eval: ${requests} model requests, ${hits} cache hits${judge ? `; judge: ${judgeCounters.done} requests, ${judgeCounters.cacheHits} cache hits` : ''}${errors ? `; ${errors} rows could not be run` : ''}\n`,
    );
  return errors ? 1 : 0;
}

/**
 * Build the RL rows of the dev records under a harness: `hsa augment` with no variants, the
 * sources kept (`~src`), the system prompt re-rendered from that harness (`replace`), bad records
 * skipped to rejects — so a record that needs something the harness no longer has is named, with
 * the reason, instead of stopping the comparison.
 */
export async function rowsUnderHarness(harness: string, trajectories: string[], label: string): Promise<HarnessRows> {
  const out = await mkdtemp(path.join(tmpdir(), `hsa-eval-${label}-`));
  try {
    const cfg = await resolveRunConfig({
      harness,
      trajectories,
      out,
      variants: 0,
      keepSource: true,
      stages: 'rl',
      systemPrompt: 'replace',
      onError: 'skip',
      concurrency: 1,
    });
    await runAugment(cfg, { force: true });
    const rows = await loadEvalSet(await setFiles([out]));
    const rejected = new Map<string, string>();
    const dir = path.join(out, 'rejects');
    for (const f of (await readdir(dir)).filter((n) => n.endsWith('.jsonl')).sort()) {
      for (const line of (await readFile(path.join(dir, f), 'utf8')).split('\n')) {
        if (!line.trim()) continue;
        const r = JSON.parse(line) as { id?: string | null; reason?: string };
        if (r.id) rejected.set(r.id.replace(/~src$/, ''), r.reason ?? 'rejected');
      }
    }
    return { harness, rows, rejected };
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}
