import { UsageError } from '../errors.js';
import type { EpisodeRow } from '../episode/row.js';
import { defaultCacheDir } from '../llm/cache.js';
import { newCounters } from '../llm/errors.js';
import { calibrate, readLabels } from '../eval/calibrate.js';
import { readEvalConfig } from '../eval/config.js';
import { judgeSettings } from '../config/judge-settings.js';
import { RubricJudge } from '../llm/judge.js';
import { loadEvalSet, setFiles } from '../eval/set.js';
import type { Io } from './io.js';

export interface JudgeCalibrateOptions {
  config: string;
  labels: string;
  set?: string[];
  votes?: number;
  aggregate?: string;
  cache?: string;
  requireCache?: boolean;
  concurrency?: number;
  json?: boolean;
}

/**
 * `hsa judge calibrate`: judge every human-labelled reply with the config's `judge:` and report
 * agreement per criterion — accuracy, within one level, Cohen's kappa and the confusion table — so
 * a rubric or vote change is judged by how well it agrees with people.
 */
export async function judgeCalibrateCommand(o: JudgeCalibrateOptions, io: Io): Promise<number> {
  const c = await readEvalConfig(o.config);
  if (!c.judge) throw new UsageError(`${o.config}: judge: required for hsa judge calibrate`);
  const patterns = o.set ?? c.set;
  if (!patterns?.length) throw new UsageError('--set: required (the rows the labels name), or set: in --config');
  const settings = await judgeSettings(c.judge, {
    ...(o.votes !== undefined ? { votes: o.votes } : {}),
    ...(o.aggregate !== undefined ? { aggregate: o.aggregate } : {}),
  });
  const rows = new Map<string, EpisodeRow>();
  for (const r of await loadEvalSet(await setFiles(patterns))) rows.set(r.row.id, r.row);
  const labels = await readLabels(o.labels, settings.rubric, (id) => rows.get(id));
  const counters = newCounters();
  const judge = new RubricJudge(settings, o.cache ?? c.cache ?? defaultCacheDir(), counters, o.requireCache ?? c.require_cache ?? false);
  const result = await calibrate(labels, judge, settings.rubric, o.concurrency ?? c.concurrency ?? 4);
  const head = { judge: settings.endpoint.model, rubric: settings.rubric.name, votes: settings.votes, aggregate: settings.aggregate, labels: result.labels };
  if (o.json) io.out(`${JSON.stringify({ ...head, criteria: result.criteria, verdicts: result.verdicts }, null, 2)}\n`);
  else {
    const lines = [`hsa judge calibrate: ${head.judge}, rubric ${head.rubric}, k=${head.votes} (${head.aggregate}), ${head.labels} labels`];
    for (const a of result.criteria) {
      lines.push(
        '',
        `${a.criterion}: n ${a.n}, accuracy ${a.accuracy.toFixed(4)}, within one level ${a.within_one.toFixed(4)}, Cohen's kappa ${a.kappa === null ? '-' : a.kappa.toFixed(4)}`,
      );
      lines.push(`  confusion (rows human, columns judge): ${a.levels.map((l) => String(l).padStart(4)).join('')}`);
      a.levels.forEach((l, i) => lines.push(`  ${String(l).padStart(38)} ${a.confusion[i]!.map((n) => String(n).padStart(4)).join('')}`));
    }
    io.out(`${lines.join('\n')}\n`);
  }
  io.err(`hsa judge calibrate: ${counters.done} judge requests, ${counters.cacheHits} cache hits\n`);
  return 0;
}
