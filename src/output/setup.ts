import { createHash } from 'node:crypto';
import type { RunConfig } from '../config/augment-config.js';
import { HsaError } from '../errors.js';
import { INLINE_HARNESS } from '../config/names.js';
import type { LoadResult } from '../harness/load.js';
import { deriveInlineHarness } from '../ingest/inline-harness.js';
import { withPinnedSections } from '../harness/render.js';
import { formatProblem, hasErrors, sortProblems } from '../problems.js';
import { TeacherCache } from '../llm/cache.js';
import type { TeacherCounters } from '../llm/errors.js';
import { ReplayTeacher } from '../teacher/replay.js';
import type { Teacher } from '../teacher/types.js';
import type { TokenCounter } from '../tokenize/tokenizer.js';
import type { ResolvedTransform } from '../transform/variant.js';
import { sortKeys } from '../util/canonical-json.js';
import { hashValue } from '../util/hash.js';
import { expandInputs } from '../util/inputs.js';
import { readJsonlLines } from '../util/jsonl.js';
import { ENGINE_VERSION, HSA_VERSION } from '../version.js';
import { hashFile } from './out-folder.js';
import { runTransforms } from './run-transforms.js';
import { BadRecordError } from './shared.js';
import type { GeneralPrompt } from './stages.js';

// A run's setup: its inputs loaded and checked, its teacher, and the descriptor whose hash (the
// fingerprint) names every byte the run writes.

/**
 * What every run over the inputs needs: transforms, words, the valid harness, the input files. With
 * an inline harness (`allowInline`; refused otherwise) `harness` is a placeholder with no sections
 * or tools: each record's own is derived as it is read (see produce.ts).
 */
export async function loadRunInputs(cfg: RunConfig, warn?: (line: string) => void, allowInline = false) {
  const { transforms, words } = await runTransforms(cfg);
  if (cfg.harness === INLINE_HARNESS) {
    if (!allowInline)
      throw new HsaError(
        'HSA_USAGE',
        'this command needs a harness (--harness or `harness:` in the config); inline harnesses work with hsa augment and hsa validate',
        2,
      );
    const files = await expandInputs(cfg.trajectories, 'trajectories');
    const harness = deriveInlineHarness({ id: '', messages: [] }, { file: '', line: 0 }).harness!;
    return { transforms, words, loaded: { harness, problems: [], files: [] } as LoadResult, harness, files };
  }
  // (The folder loader and its schemas are loaded for a harness folder only: inline runs never need them.)
  const { loadHarness } = await import('../harness/load.js');
  const loaded = await loadHarness(cfg.harness);
  for (const p of sortProblems(loaded.problems)) if (p.severity === 'warning') warn?.(formatProblem(p));
  if (!loaded.harness || hasErrors(loaded.problems)) {
    const lines = sortProblems(loaded.problems.filter((p) => p.severity === 'error')).map(formatProblem);
    throw new HsaError('HSA_BAD_HARNESS', `${cfg.harness}: the harness has errors:\n${lines.join('\n')}`, 1);
  }
  const files = await expandInputs(cfg.trajectories, 'trajectories');
  // Located records keep their sections in the slots of their log: no transform moves or merges them.
  const harness = cfg.systemPrompt === 'locate' ? withPinnedSections(loaded.harness) : loaded.harness;
  return { transforms, words, loaded, harness, files };
}

/** What a run is made from, with the descriptor and fingerprint that name its output. */
export interface RunSetup extends Awaited<ReturnType<typeof loadRunInputs>> {
  inputs: { file: string; sha256: string; bytes: number }[];
  general: { file: string; sha256: string; prompts: GeneralPrompt[] } | null;
  counter: TokenCounter | undefined;
  descriptor: Record<string, unknown>;
  fingerprint: string;
}

/**
 * Load a run's inputs (the harness checked, the trajectory files hashed, the general prompts and
 * the tokenizer when asked for) and describe it: the descriptor lists every input, config key and
 * transform that changes output bytes, and its hash is the fingerprint markers and folders carry.
 */
export async function setUpRun(cfg: RunConfig, warn?: (line: string) => void): Promise<RunSetup> {
  const loadedInputs = await loadRunInputs(cfg, warn, true);
  const { transforms, loaded, files } = loadedInputs;
  const inputs = await Promise.all(files.map(async (file) => ({ file, ...(await hashFile(file)) })));
  const general = cfg.general ? await loadGeneral(cfg.general) : null;
  // Loaded only when asked for (its modules are a noticeable share of a short run's start-up).
  const counter = cfg.tokenizer !== null ? await (await import('../tokenize/tokenizer.js')).loadTokenCounter(cfg.tokenizer) : undefined;

  const outputConfig = outputAffectingConfig(cfg, counter);
  const descriptor = sortKeys({
    hsa_version: HSA_VERSION,
    engine_version: ENGINE_VERSION,
    config: outputConfig,
    seed: cfg.seed,
    inputs: {
      harness: { path: cfg.harness, files: loaded.files.map((f) => ({ file: f.file, sha256: sha(f.text) })) },
      trajectories: inputs.map((i) => ({ file: i.file, sha256: i.sha256, bytes: i.bytes })),
      ...(general ? { general: { file: general.file, sha256: general.sha256, prompts: general.prompts.length } } : {}),
    },
    transforms: transforms.map((t: ResolvedTransform) => ({ id: t.def.id, version: t.def.version, class: t.def.class, options: t.options })),
  }) as Record<string, unknown>;
  return { ...loadedInputs, inputs, general, counter, descriptor, fingerprint: hashValue(descriptor) };
}

/** The teacher of a run: none in rewrite mode, the replay teacher, or an OpenAI-compatible endpoint. */
export async function makeTeacher(
  cfg: RunConfig,
  signal: AbortSignal | undefined,
  counters: TeacherCounters,
  requireCache = cfg.requireCache,
): Promise<Teacher | undefined> {
  const t = cfg.teacher;
  if (t.mode === 'rewrite') return undefined;
  if (t.mode === 'replay') return new ReplayTeacher();
  // The client library is loaded only by runs that talk to a teacher.
  const { OpenAiTeacher } = await import('../teacher/openai.js');
  return new OpenAiTeacher(t, new TeacherCache(cfg.cache), { requireCache, ...(signal ? { signal } : {}), counters });
}

/** The config keys that change output bytes (not concurrency, progress or output chattiness). */
function outputAffectingConfig(cfg: RunConfig, counter: TokenCounter | undefined): Record<string, unknown> {
  return {
    // Present only when counting, so runs without a tokenizer keep their fingerprint. The tokenizer
    // is named by its bytes (a folder spelled another way is the same tokenizer).
    ...(counter
      ? { tokens: { tokenizer_sha256: counter.info.tokenizer_sha256, template_sha256: counter.info.template_sha256, max_tokens: cfg.maxTokens } }
      : {}),
    harness: cfg.harness,
    trajectories: cfg.trajectories,
    general: cfg.general,
    seed: cfg.seed,
    variants: cfg.variants,
    keep_source: cfg.keepSource,
    stages: cfg.stages,
    part_size: cfg.partSize,
    gzip: cfg.gzip,
    on_error: cfg.onError,
    state_pool: cfg.statePool,
    system_prompt: cfg.systemPrompt,
    validation: { formats: cfg.formats === 'assertion' ? 'assert' : 'annotate' },
    // The teacher's identity and sampling change output; its key, cache folder, rate limits,
    // timeouts and retries do not.
    teacher: {
      mode: cfg.teacher.mode,
      ...(cfg.teacher.mode === 'openai'
        ? {
            base_url: cfg.teacher.baseUrl,
            model: cfg.teacher.model,
            temperature: cfg.teacher.temperature ?? null,
            top_p: cfg.teacher.topP ?? null,
            max_tokens: cfg.teacher.maxTokens ?? null,
            seed: cfg.teacher.seed ?? null,
            extra_body: cfg.teacher.extraBody ?? null,
          }
        : {}),
      ...(cfg.teacher.mode !== 'rewrite'
        ? {
            consistency: cfg.teacher.consistency,
            max_rounds: cfg.teacher.maxRounds,
            fallback: cfg.teacher.fallback,
            recovery: { max_call_retries: cfg.teacher.recovery.maxCallRetries, max_attempts: cfg.teacher.recovery.maxAttempts },
          }
        : {}),
      // The judge decides what is accepted: its identity, rubric and threshold are part of the output's.
      ...(cfg.teacher.judge ? { judge: judgeIdentity(cfg.teacher.judge) } : {}),
    },
    arguments: cfg.arguments,
    tools_format: cfg.toolsFormat,
    opd: cfg.opd,
    sft: cfg.sft,
    rl: cfg.rl,
    words: cfg.words ?? null,
    plugins: cfg.plugins,
    // Only a split run records its split, so the manifest of every other run stays as it was.
    ...(cfg.split ? { split: cfg.split, split_holdout: cfg.splitHoldout } : {}),
  };
}

function judgeIdentity(j: NonNullable<RunConfig['teacher']['judge']>): Record<string, unknown> {
  const e = j.settings.endpoint;
  return {
    base_url: e.baseUrl,
    model: e.model,
    temperature: e.temperature ?? null,
    seed: e.seed ?? null,
    rubric: j.settings.rubric,
    votes: j.settings.votes,
    aggregate: j.settings.aggregate,
    evidence: j.settings.evidence,
    min_score: j.minScore,
  };
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function loadGeneral(file: string): Promise<{ file: string; sha256: string; prompts: GeneralPrompt[] }> {
  const prompts: GeneralPrompt[] = [];
  const problems: string[] = [];
  for await (const { line, text } of readJsonlLines(file)) {
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      problems.push(`${file}:${line}: (json): not valid JSON: ${(e as Error).message}`);
      continue;
    }
    const o = v as Partial<GeneralPrompt>;
    if (typeof o.id !== 'string' || !Array.isArray(o.messages) || o.messages.length === 0) {
      problems.push(
        `${file}:${line}: ${typeof o.id === 'string' ? `${o.id}: ` : ''}${typeof o.id !== 'string' ? 'id' : 'messages'}: required (a general prompt is {"id","messages":[...],"meta"?})`,
      );
      continue;
    }
    prompts.push({ id: o.id, messages: o.messages, ...(o.meta ? { meta: o.meta } : {}) });
  }
  if (problems.length) throw new BadRecordError(problems.join('\n'));
  const { sha256 } = await hashFile(file);
  return { file, sha256, prompts };
}
