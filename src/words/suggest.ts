import { mkdir, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { HsaError } from '../errors.js';
import { loadHarness } from '../harness/load.js';
import type { Harness } from '../harness/types.js';
import { hasErrors, type Problem } from '../problems.js';
import { TeacherCache } from '../llm/cache.js';
import { EndpointClient, type EndpointSettings } from '../llm/client.js';
import { newCounters } from '../llm/errors.js';
import { splitWords } from './identifier-words.js';
import { formatIssues, packSchema, type PackFile } from './packs.js';

export interface WordsSuggestOptions {
  harness: string;
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1. */
  modelUrl: string;
  model: string;
  /** Pack file to write; stdout when absent. */
  out?: string;
  /** Environment variable with the API key (never written anywhere). */
  keyEnv?: string;
  /** Answer cache folder (default $HSA_CACHE_DIR/../words, else ~/.cache/hsa/words). */
  cache?: string;
  /** Fail on a request missing from the cache instead of sending it. */
  requireCache?: boolean;
  /** Requests per suggestion: the first and up to this many corrections of an invalid answer. */
  attempts?: number;
  timeoutS?: number;
}

/** The model answered, but never with a valid pack. */
export class SuggestionError extends HsaError {
  constructor(message: string) {
    super('HSA_TEACHER_REQUEST', message, 1);
    this.name = 'SuggestionError';
  }
}

/** The default cache of suggestions: next to the teacher cache. */
export function defaultWordsCacheDir(): string {
  if (process.env.HSA_CACHE_DIR) return path.join(process.env.HSA_CACHE_DIR, 'words');
  return path.join(process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache'), 'hsa', 'words');
}

const INSTRUCTIONS = `You write vocabulary packs for a data-augmentation tool that renames the tools, skills and parameters of an AI agent's harness and adds distractor tools and skills it never uses. Answer with ONE JSON object, no prose, with these keys:
- "synonyms": object. Keys: single lower-case words that occur in the harness identifiers below. Values: arrays whose items are either a lower-case identifier word that can replace the key in ANY sense, or a sense object {"sense": name, "cues": [words that show this sense in a description], "words": [replacements in this sense]}. Use senses for words with several meanings in this domain (for example "order" as a purchase vs a sequence); never give a replacement that changes what the element does.
- "prefixes", "suffixes": arrays of short lower-case words fitting this domain, usable as identifier prefixes/suffixes.
- "distractor_tools": 4-8 plausible tools of THIS domain that the agent does not have: {"name": snake_case, "description": one sentence, "parameters": JSON Schema with "type": "object"}. Never repeat or paraphrase an existing tool.
- "distractor_skills": 3-6 plausible skills of this domain the agent does not have: {"id": snake_case, "kind": "reply" or "strategy", "description": one sentence, "body": short markdown instructions}.
Words are ASCII lower-case letters and digits only (no transliterations unless the harness uses them).`;

/** What the model is shown of a harness: names and descriptions of its tools, parameters and skills. */
export function harnessInventory(h: Harness): string {
  const lines = [`Harness: ${h.name} ${h.version}`, '', 'Tools:'];
  for (const t of h.tools) {
    lines.push(`- ${t.name}: ${t.description.trim()}`);
    const props = (t.parameters.properties ?? {}) as Record<string, { description?: unknown }>;
    for (const [p, s] of Object.entries(props)) lines.push(`  - ${p}${typeof s?.description === 'string' ? `: ${s.description}` : ''}`);
  }
  if (h.skills.length) {
    lines.push('', 'Skills:');
    for (const s of h.skills) lines.push(`- ${s.id}: ${s.description.trim()}`);
  }
  const words = new Set<string>();
  for (const name of [...h.tools.map((t) => t.name), ...h.skills.map((s) => s.id), ...h.tools.flatMap((t) => Object.keys(t.parameters.properties ?? {}))])
    for (const w of splitWords(name)) words.add(w);
  lines.push('', `Identifier words: ${[...words].sort().join(', ')}`);
  return lines.join('\n');
}

/** The JSON object in a model answer (a fenced block is accepted). */
function extractJson(content: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(content);
  const text = (fenced ? fenced[1]! : content).trim();
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end < start) throw new Error('the answer holds no JSON object');
  return JSON.parse(text.slice(start, end + 1));
}

/** Validate an answer as a pack; problems as `answer: key.path: message` lines. */
function checkAnswer(content: string, h: Harness): { pack?: PackFile; problems: string } {
  let value: unknown;
  try {
    value = extractJson(content);
  } catch (e) {
    return { problems: `answer: not JSON: ${(e as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problems: 'answer: expected a JSON object' };
  const { name: _n, description: _d, ...lists } = value as Record<string, unknown>;
  const r = packSchema.safeParse(lists);
  if (!r.success) return { problems: formatIssues('answer', r.error.issues, () => undefined) };
  const taken = new Set([...h.tools.map((t) => t.name), ...h.skills.map((s) => s.id)]);
  const clash = [...(r.data.distractor_tools ?? []).map((t) => t.name), ...(r.data.distractor_skills ?? []).map((s) => s.id)].filter((n) => taken.has(n));
  if (clash.length) return { problems: `answer: distractors repeat harness names: ${clash.join(', ')}` };
  return { pack: r.data, problems: '' };
}

/** What `suggestWords` gives: the harness's problems when it has errors, else the pack (written to `out` when given). */
export type SuggestResult = { problems: Problem[] } | { pack: PackFile; text: string; requests: { sent: number; cached: number } };

/**
 * Ask an OpenAI-compatible model for domain synonyms and distractor tools and skills of a harness,
 * validate the answer against the pack schema (asking again with the problems, up to `attempts`
 * requests), and write the pack for review. Every request is cached by the hash of its body, so a
 * rerun with the cache sends nothing and writes the same bytes.
 */
export async function suggestWords(opts: WordsSuggestOptions): Promise<SuggestResult> {
  const loaded = await loadHarness(opts.harness);
  if (!loaded.harness || hasErrors(loaded.problems)) return { problems: loaded.problems };
  const h = loaded.harness;
  const model = modelEndpoint(opts);
  const messages: { role: 'system' | 'user' | 'assistant'; content: string }[] = [
    { role: 'system', content: INSTRUCTIONS },
    { role: 'user', content: harnessInventory(h) },
  ];
  const attempts = Math.max(1, opts.attempts ?? 3);
  let problems = '';
  for (let attempt = 0; attempt < attempts; attempt++) {
    const body = { model: opts.model, messages, temperature: 0, response_format: { type: 'json_object' } };
    const content = await model.answer(body);
    const checked = checkAnswer(content, h);
    if (checked.pack) {
      const text = packText(checked.pack, h, opts);
      if (opts.out) {
        await mkdir(path.dirname(path.resolve(opts.out)), { recursive: true });
        await writeFile(opts.out, text);
      }
      await model.settle();
      return { pack: checked.pack, text, requests: model.requests };
    }
    problems = checked.problems;
    messages.push(
      { role: 'assistant', content },
      { role: 'user', content: `That answer is not a valid pack:\n${problems}\nAnswer again with the whole corrected JSON object.` },
    );
  }
  await model.settle();
  throw new SuggestionError(`${opts.modelUrl}: no valid word pack after ${attempts} answers; the last one:\n${problems}`);
}

/**
 * The model behind `opts.modelUrl`, through the one endpoint client (src/llm): `answer(body)`
 * returns the content of one chat completion, from the answer cache or sent (a missing answer with
 * `requireCache` is an error), and counts both; `settle()` waits for the cache writes.
 */
function modelEndpoint(opts: WordsSuggestOptions): {
  answer: (body: Record<string, unknown>) => Promise<string>;
  settle: () => Promise<void>;
  requests: { sent: number; cached: number };
} {
  const counters = newCounters();
  const settings: EndpointSettings = {
    baseUrl: opts.modelUrl,
    model: opts.model,
    apiKeyEnv: opts.keyEnv ?? 'OPENAI_API_KEY',
    timeoutMs: (opts.timeoutS ?? 120) * 1000,
    maxRetries: 3,
  };
  const client = new EndpointClient(settings, new TeacherCache(opts.cache ?? defaultWordsCacheDir()), {
    requireCache: opts.requireCache === true,
    counters,
    who: 'the model',
    keySetting: 'words suggest',
    keyFlag: '--key-env',
  });
  const requests = { sent: 0, cached: 0 };
  const answer = async (body: Record<string, unknown>): Promise<string> => {
    const reply = await client.complete(body);
    if (reply.cached) requests.cached++;
    else requests.sent++;
    return reply.content ?? '';
  };
  return { answer, settle: () => client.settle(), requests };
}

/** The pack file: a header that says where it came from (no time: reruns write the same bytes), then the lists. */
function packText(p: PackFile, h: Harness, opts: WordsSuggestOptions): string {
  const pack = { name: `${h.name}-suggested`, description: `Suggested by ${opts.model} for the harness ${h.name} ${h.version}; review before use.`, ...p };
  return `# Word pack suggested by \`hsa words suggest\` (model ${opts.model}) for ${h.name} ${h.version}.\n# Review every entry before you select it (docs/words.md).\n${stringify(pack, { lineWidth: 0 })}`;
}
