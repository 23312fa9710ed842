import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RunConfig } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { episodeOptions, statePoolFor, variantsOf } from './variants.js';
import { loadRunInputs, makeTeacher } from './setup.js';
import { hasErrors } from '../problems.js';
import { checkTrajectory } from '../trajectory/check.js';
import { parseTrajectoryLine } from '../trajectory/read.js';
import { readJsonlLines } from '../util/jsonl.js';
import { TeacherCache } from '../llm/cache.js';
import { CacheMissError, newCounters } from '../llm/errors.js';
import { runEpisode } from '../teacher/runtime.js';

/** Lines per batch file: the OpenAI Batch API takes at most 50,000 requests a file. */
export const BATCH_LINES = 50_000;

export interface ExportSummary {
  variants: number;
  /** Variants whose every teacher call is already cached. */
  complete: number;
  requests: number;
  files: string[];
}

/**
 * `hsa teacher export`: run every variant's episode against the cache only and write the first
 * missing request of each episode as OpenAI Batch JSONL (`custom_id` = cache key), split at 50,000
 * lines. Episodes are multi-turn, so export → run the batch → import advances every trajectory by
 * one call per round, until nothing is missing.
 */
export async function exportMissing(cfg: RunConfig, dir: string, warn?: (line: string) => void): Promise<ExportSummary> {
  if (cfg.teacher.mode !== 'openai') throw new HsaError('HSA_USAGE', 'teacher export needs --teacher openai (and its base_url and model)', 2);
  const { transforms, words, harness, files } = await loadRunInputs(cfg, warn);
  const teacher = (await makeTeacher(cfg, undefined, newCounters(), true))!;
  const ctx = { cfg, harness, transforms, words, pool: statePoolFor(cfg, harness, transforms, words) };
  const missing = new Map<string, Record<string, unknown>>();
  let variants = 0;
  let complete = 0;
  for (const file of files) {
    for await (const { line, text } of readJsonlLines(file)) {
      const parsed = parseTrajectoryLine(file, line, text);
      if (!parsed.ok || hasErrors(checkTrajectory(parsed.record, harness, { file, line, systemPrompt: cfg.systemPrompt }))) continue;
      for (const v of variantsOf(ctx, parsed.record)) {
        variants++;
        try {
          await runEpisode(parsed.record, harness, v.variant.state, v.variant.plan, v.id, teacher, episodeOptions(cfg, warn ?? (() => undefined)));
          complete++;
        } catch (e) {
          if (!(e instanceof CacheMissError)) throw e;
          if (!missing.has(e.key)) missing.set(e.key, e.body);
        }
      }
    }
  }
  await mkdir(dir, { recursive: true });
  const lines = [...missing.entries()].map(([key, body]) => JSON.stringify({ custom_id: key, method: 'POST', url: '/v1/chat/completions', body }));
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += BATCH_LINES) {
    const file = path.join(dir, `batch-${String(i / BATCH_LINES).padStart(5, '0')}.jsonl`);
    await writeFile(file, `${lines.slice(i, i + BATCH_LINES).join('\n')}\n`);
    out.push(file);
  }
  return { variants, complete, requests: lines.length, files: out };
}

export interface ImportSummary {
  imported: number;
  skipped: { file: string; line: number; custom_id: string | null; reason: string }[];
}

/**
 * `hsa teacher import`: load Batch API (or `vllm run-batch`) result files into the cache. Only
 * successful, non-truncated answers are stored; every other line is reported with its reason.
 */
export async function importResults(cacheDir: string, files: readonly string[]): Promise<ImportSummary> {
  const cache = new TeacherCache(cacheDir);
  const summary: ImportSummary = { imported: 0, skipped: [] };
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new HsaError('HSA_UNREADABLE', `${file}: cannot read`, 2);
    }
    let lineNo = 0;
    for (const raw of text.split('\n')) {
      lineNo++;
      if (raw.trim() === '') continue;
      const skip = (custom_id: string | null, reason: string) => summary.skipped.push({ file, line: lineNo, custom_id, reason });
      let row: { custom_id?: unknown; response?: { status_code?: number; body?: unknown } | null; error?: unknown };
      try {
        row = JSON.parse(raw);
      } catch {
        skip(null, 'not valid JSON');
        continue;
      }
      const id = typeof row.custom_id === 'string' ? row.custom_id : null;
      if (!id || !/^[0-9a-f]{64}$/.test(id)) {
        skip(id, 'custom_id is not an hsa cache key');
        continue;
      }
      if (!row.response || row.response.status_code !== 200) {
        skip(id, row.error ? `error: ${JSON.stringify(row.error)}` : `status ${row.response?.status_code ?? 'missing'}`);
        continue;
      }
      const body = row.response.body as { choices?: { finish_reason?: string; message?: unknown }[] } | undefined;
      const choice = body?.choices?.[0];
      if (!choice?.message) {
        skip(id, 'response has no message');
        continue;
      }
      if (choice.finish_reason === 'length') {
        skip(id, 'answer was cut off (finish_reason length); not cached');
        continue;
      }
      await cache.put(id, body);
      summary.imported++;
    }
  }
  return summary;
}
