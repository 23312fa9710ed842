import path from 'node:path';
import { cmp } from '../problems.js';
import { BUCKETS, readManifest, type ReviewBucket } from './folder.js';
import { newTally, readPartLines } from './part-reader.js';
import { appliedTransforms, renameTables, type RenameTables } from './record-checks.js';
import type { ReviewProgress } from './verify.js';

export interface StatsOptions {
  out: string;
  onProgress?: (p: ReviewProgress) => void;
}

/** Summary of a list of numbers: bounds, mean, quantiles and a histogram of equal-width buckets. */
export interface Distribution {
  count: number;
  min: number;
  max: number;
  mean: number;
  p50: number;
  p90: number;
  histogram: { from: number; to: number; count: number }[];
}

export interface NameDiversity {
  /** Variants that renamed this identifier. */
  renamed: number;
  /** Share of all variants (records with a variant index) that renamed it. */
  share: number;
  distinct_new_names: number;
  /** The most frequent new names, with counts (up to 5). */
  top: [string, number][];
}

export interface StatsReport {
  out: string;
  stages: Partial<Record<ReviewBucket, { records: number; bytes: number; parts: { file: string; records: number }[] }>>;
  /** The manifest's totals, and whether every stage count read from disk equals the manifest's. */
  totals: Record<string, number>;
  counts_match_manifest: boolean;
  rejects: { by_reason: Record<string, number>; by_kind: Record<string, number> };
  /** Variants (SFT records that are not kept sources, or RL rows when there is no SFT stage). */
  variants: number;
  transforms: Record<string, { applied: number; share: number; params: Record<string, Record<string, number>> }>;
  names: Record<keyof RenameTables, Record<string, NameDiversity>>;
  sizes: Partial<Record<ReviewBucket, { chars: Distribution; messages: Distribution; tool_calls: Distribution }>>;
  coverage: {
    intents: Record<string, { sources: number; variants: number }>;
    skills: Record<string, { sources: number; variants: number }>;
  };
  warnings: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Growable list of numbers in a typed array (three per record is all the sizes cost). */
class Numbers {
  private a = new Float64Array(1024);
  n = 0;
  push(x: number): void {
    if (this.n === this.a.length) {
      const b = new Float64Array(this.a.length * 2);
      b.set(this.a);
      this.a = b;
    }
    this.a[this.n++] = x;
  }
  distribution(buckets = 16): Distribution {
    const v = this.a.slice(0, this.n).sort();
    if (v.length === 0) return { count: 0, min: 0, max: 0, mean: 0, p50: 0, p90: 0, histogram: [] };
    const min = v[0]!;
    const max = v[v.length - 1]!;
    let sum = 0;
    for (const x of v) sum += x;
    const q = (p: number) => v[Math.min(v.length - 1, Math.floor(p * v.length))]!;
    const integer = v.every((x) => Number.isInteger(x));
    let k = Math.max(1, Math.min(buckets, integer ? max - min + 1 : buckets));
    const width = Math.max(integer ? 1 : 0, (max - min) / k);
    if (width === 0) k = 1;
    const hist = Array.from({ length: k }, (_, i) => ({ from: min + i * width, to: i === k - 1 ? max : min + (i + 1) * width, count: 0 }));
    for (const x of v) hist[width === 0 ? 0 : Math.min(k - 1, Math.floor((x - min) / width))]!.count++;
    const round = (x: number) => Math.round(x * 100) / 100;
    return {
      count: v.length,
      min,
      max,
      mean: round(sum / v.length),
      p50: q(0.5),
      p90: q(0.9),
      histogram: hist.map((h) => ({ from: round(h.from), to: round(h.to), count: h.count })),
    };
  }
}

function textLength(c: unknown): number {
  if (typeof c === 'string') return c.length;
  if (Array.isArray(c)) return c.reduce((n: number, p) => n + (isObj(p) && typeof p.text === 'string' ? p.text.length : 0), 0);
  return 0;
}

function messageSizes(messages: unknown[]): { chars: number; calls: number } {
  let chars = 0;
  let calls = 0;
  for (const m of messages) {
    if (!isObj(m)) continue;
    chars += textLength(m.content);
    if (Array.isArray(m.tool_calls)) {
      calls += m.tool_calls.length;
      for (const c of m.tool_calls) {
        const a = isObj(c) && isObj(c.function) ? c.function.arguments : undefined;
        chars += typeof a === 'string' ? a.length : JSON.stringify(a ?? '').length;
      }
    }
  }
  return { chars, calls };
}

const inverse = (m: Record<string, string>) => Object.fromEntries(Object.entries(m).map(([a, b]) => [b, a]));

/**
 * `hsa stats OUT`: what a reviewer looks at before signing off, in one streaming pass over the
 * parts — records per stage and part, rejects by reason, how often each transform applied and
 * with which parameters, name diversity per original identifier, record sizes, and intent and
 * skill coverage of the variants against their sources.
 */
export async function runStats(opts: StatsOptions): Promise<StatsReport> {
  const manifest = await readManifest(opts.out);
  const warnings: string[] = [];
  const stages: StatsReport['stages'] = {};
  const sizes: Partial<Record<ReviewBucket, { chars: Numbers; messages: Numbers; calls: Numbers }>> = {};
  const transforms = new Map<string, { applied: number; params: Map<string, Map<string, number>> }>();
  const names: Record<keyof RenameTables, Map<string, { renamed: number; news: Map<string, number> }>> = {
    tools: new Map(),
    skills: new Map(),
    params: new Map(),
    hooks: new Map(),
  };
  const intents = new Map<string, { sources: Set<string>; variants: number }>();
  const skills = new Map<string, { sources: Set<string>; variants: number }>();
  const byKind: Record<string, number> = {};
  let variants = 0;
  const hasSft = Boolean(manifest.stages?.sft);
  const bytesTotal = BUCKETS.reduce((n, b) => n + (manifest.stages?.[b]?.bytes ?? 0), 0);
  const progress: ReviewProgress = { bytesRead: 0, bytesTotal, records: 0 };

  const noteVariant = (applied: unknown[]) => {
    variants++;
    const seen = new Set<string>();
    for (const a of applied) {
      if (!isObj(a) || typeof a.id !== 'string' || seen.has(a.id)) continue;
      seen.add(a.id);
      let t = transforms.get(a.id);
      if (!t) transforms.set(a.id, (t = { applied: 0, params: new Map() }));
      t.applied++;
      // The style of each rename, recognised from the names (the params keep only old → new).
      if (isObj(a.params) && isObj(a.params.renamed)) {
        let m = t.params.get('style (recognised)');
        if (!m) t.params.set('style (recognised)', (m = new Map()));
        for (const [old, now] of Object.entries(a.params.renamed)) {
          if (typeof now !== 'string') continue;
          const st = renameStyle(old, now);
          m.set(st, (m.get(st) ?? 0) + 1);
        }
      }
      for (const [k, v] of Object.entries(isObj(a.params) ? a.params : {})) {
        let m = t.params.get(k);
        if (!m) t.params.set(k, (m = new Map()));
        // Scalars by value; maps and lists by their size (a rename table's entries, a distractor list's length).
        const key = v === null || typeof v !== 'object' ? JSON.stringify(v) : Array.isArray(v) ? `${v.length} items` : `${Object.keys(v).length} entries`;
        m.set(key, (m.get(key) ?? 0) + 1);
      }
    }
    const tables = renameTables(applied);
    for (const kind of Object.keys(names) as (keyof RenameTables)[]) {
      for (const [orig, now] of Object.entries(tables[kind])) {
        let d = names[kind].get(orig);
        if (!d) names[kind].set(orig, (d = { renamed: 0, news: new Map() }));
        d.renamed++;
        d.news.set(now, (d.news.get(now) ?? 0) + 1);
      }
    }
    return tables;
  };
  const cover = (map: Map<string, { sources: Set<string>; variants: number }>, key: string, sourceId: string, isVariant: boolean) => {
    let c = map.get(key);
    if (!c) map.set(key, (c = { sources: new Set(), variants: 0 }));
    c.sources.add(sourceId);
    if (isVariant) c.variants++;
  };

  for (const b of BUCKETS) {
    const listed = manifest.stages?.[b];
    if (!listed) continue;
    const st = { records: 0, bytes: 0, parts: [] as { file: string; records: number }[] };
    stages[b] = st;
    const sz = b === 'rejects' ? undefined : (sizes[b] = { chars: new Numbers(), messages: new Numbers(), calls: new Numbers() });
    for (const part of listed.files ?? []) {
      const file = path.join(opts.out, part.file);
      const tally = newTally();
      let n = 0;
      for await (const l of readPartLines(file, tally)) {
        if (l.text.trim() === '') continue;
        n++;
        progress.records++;
        if (progress.records % 512 === 0) opts.onProgress?.({ ...progress, bytesRead: progress.bytesRead + l.offset });
        let v: unknown;
        try {
          v = JSON.parse(l.text);
        } catch {
          warnings.push(`${file}:${l.line}: not valid JSON (run hsa verify)`);
          continue;
        }
        if (!isObj(v)) continue;
        if (b === 'rejects') {
          const kind = typeof v.kind === 'string' ? v.kind : 'unknown';
          byKind[kind] = (byKind[kind] ?? 0) + 1;
          continue;
        }
        const meta = (b === 'rl' ? v.extra_info : v.meta) as Obj | undefined;
        const messages = (b === 'rl' ? v.prompt : v.messages) as unknown[] | undefined;
        const ms = messageSizes(Array.isArray(messages) ? messages : []);
        let calls = ms.calls;
        if (b === 'rl') {
          try {
            calls = ((JSON.parse(String(meta?.env)) as { tool_replay?: unknown[] }).tool_replay ?? []).length;
          } catch {
            /* counted as none */
          }
        }
        sz!.chars.push(ms.chars);
        sz!.messages.push(Array.isArray(messages) ? messages.length : 0);
        sz!.calls.push(calls);
        if (!meta || meta.source === 'general') continue;
        const sourceId = typeof meta.source_id === 'string' ? meta.source_id : '';
        const isVariant = typeof meta.variant === 'number';
        // Variants are counted once: on SFT, or on RL when the run wrote no SFT.
        const primary = b === 'sft' || (b === 'rl' && !hasSft);
        const tables = primary && isVariant ? noteVariant(appliedTransforms(b, v)) : renameTables(appliedTransforms(b, v));
        if (primary) {
          const sm = (b === 'sft' ? meta.source_meta : undefined) as Obj | undefined;
          const intent = typeof sm?.intent === 'string' ? sm.intent : '(none)';
          cover(intents, intent, sourceId, isVariant);
        }
        // Skills from the RL reference (exact: the loaded skills in new names), mapped back to the source's names.
        if (b === 'rl') {
          try {
            const gt = JSON.parse(String((v.reward_model as Obj).ground_truth)) as { expected_skills?: unknown[] };
            const back = inverse(tables.skills);
            for (const s of new Set(gt.expected_skills ?? [])) if (typeof s === 'string') cover(skills, back[s] ?? s, sourceId, isVariant);
          } catch {
            /* no skills */
          }
        }
      }
      progress.bytesRead += tally.bytes;
      st.records += n;
      st.bytes += tally.bytes;
      st.parts.push({ file: part.file, records: n });
      if (n !== part.records) warnings.push(`${file}: ${n} records, the manifest says ${part.records} (run hsa verify)`);
    }
    if (st.records !== listed.records) warnings.push(`${b}: ${st.records} records read, the manifest says ${listed.records}`);
  }
  opts.onProgress?.(progress);

  const sorted = <T>(m: Map<string, T>) => [...m.entries()].sort((x, y) => cmp(x[0], y[0]));
  const diversity = (m: Map<string, { renamed: number; news: Map<string, number> }>) =>
    Object.fromEntries(
      sorted(m).map(([orig, d]) => [
        orig,
        {
          renamed: d.renamed,
          share: variants ? round3(d.renamed / variants) : 0,
          distinct_new_names: d.news.size,
          top: [...d.news.entries()].sort((x, y) => y[1] - x[1] || cmp(x[0], y[0])).slice(0, 5),
        } satisfies NameDiversity,
      ]),
    );
  const coverage = (m: Map<string, { sources: Set<string>; variants: number }>) =>
    Object.fromEntries(sorted(m).map(([k, c]) => [k, { sources: c.sources.size, variants: c.variants }]));
  return {
    out: opts.out,
    stages,
    totals: manifest.totals ?? {},
    counts_match_manifest: warnings.length === 0,
    rejects: { by_reason: { ...(manifest.reject_reasons ?? {}) }, by_kind: byKind },
    variants,
    transforms: Object.fromEntries(
      sorted(transforms).map(([id, t]) => [
        id,
        {
          applied: t.applied,
          share: variants ? round3(t.applied / variants) : 0,
          params: Object.fromEntries(sorted(t.params).map(([k, vals]) => [k, Object.fromEntries(sorted(vals))])),
        },
      ]),
    ),
    names: { tools: diversity(names.tools), skills: diversity(names.skills), params: diversity(names.params), hooks: diversity(names.hooks) },
    sizes: Object.fromEntries(
      Object.entries(sizes).map(([b, s]) => [b, { chars: s.chars.distribution(), messages: s.messages.distribution(), tool_calls: s.calls.distribution() }]),
    ),
    coverage: { intents: coverage(intents), skills: coverage(skills) },
    warnings,
  };
}

/**
 * Which naming style a rename looks like: `case` (same words, other case or separators), `mcp`
 * (`server__name`), `opaque` (a prefix and hex digits), `affix` (the old words kept, a word added),
 * else `synonym` (words replaced).
 */
export function renameStyle(old: string, now: string): string {
  const words = (s: string) =>
    s
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((w) => w !== '');
  const a = words(old).join(' ');
  const b = words(now).join(' ');
  if (a === b) return 'case';
  if (/^[A-Za-z0-9]+__/.test(now) && b.endsWith(a)) return 'mcp';
  if (/^[a-z]+_[0-9a-f]{4,}$/.test(now)) return 'opaque';
  if (b.includes(a)) return 'affix';
  return 'synonym';
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
