import OpenAI from 'openai';
import type { Harness } from '../harness/types.js';
import { HsaError } from '../errors.js';
import { TeacherCache } from '../llm/cache.js';
import { isLoopback } from '../llm/client.js';
import type { MigrationPlan, Proposal } from './types.js';

export interface ProposeSettings {
  url: string;
  model: string;
  cache: string;
  /** Environment variable holding the API key (loopback endpoints need none). */
  apiKeyEnv?: string;
}

interface Question {
  kind: Proposal['kind'];
  from: string;
  text: string;
  candidates: { name: string; text: string }[];
}

/**
 * Ask an OpenAI-compatible model which element of B each element of A that inference left without
 * a counterpart became (removed tools, skills and hooks, among B's added ones). Every request is
 * cached by the hash of its body (the teacher's cache), so a rerun asks nothing and gives the same
 * plan. Answers are written as `proposals`: a person moves one into the plan; apply never reads them.
 */
export async function proposeMatches(plan: MigrationPlan, a: Harness, b: Harness, s: ProposeSettings, warn: (line: string) => void): Promise<MigrationPlan> {
  const questions: Question[] = [];
  const tool = (h: Harness, n: string) => h.tools.find((t) => t.name === n);
  const addedTools = plan.added.tools.map((n) => ({
    name: n,
    text: `${n}: ${tool(b, n)?.description ?? ''} parameters ${JSON.stringify(tool(b, n)?.parameters ?? {})}`,
  }));
  for (const t of plan.tools) {
    if (t.map || t.split || addedTools.length === 0) continue;
    const at = tool(a, t.from);
    questions.push({
      kind: 'tool',
      from: t.from,
      text: `${t.from}: ${at?.description ?? ''} parameters ${JSON.stringify(at?.parameters ?? {})}`,
      candidates: addedTools,
    });
  }
  const addedSkills = plan.added.skills.map((n) => ({ name: n, text: `${n}: ${b.skills.find((x) => x.id === n)?.description ?? ''}` }));
  for (const e of plan.skills)
    if (e.to === null && addedSkills.length)
      questions.push({ kind: 'skill', from: e.from, text: `${e.from}: ${a.skills.find((x) => x.id === e.from)?.description ?? ''}`, candidates: addedSkills });
  const addedHooks = plan.added.hooks.map((n) => ({ name: n, text: `${n}: ${b.hooks.find((x) => x.id === n)?.feedback ?? ''}` }));
  for (const e of plan.hooks)
    if (e.to === null && addedHooks.length)
      questions.push({ kind: 'hook', from: e.from, text: `${e.from}: ${a.hooks.find((x) => x.id === e.from)?.feedback ?? ''}`, candidates: addedHooks });
  if (questions.length === 0) return plan;

  const keyEnv = s.apiKeyEnv ?? 'OPENAI_API_KEY';
  const apiKey = process.env[keyEnv];
  if (!apiKey && !isLoopback(s.url)) throw new HsaError('HSA_TEACHER_FATAL', `--model-url ${s.url} is not a loopback address and ${keyEnv} is not set`, 1);
  const client = new OpenAI({ baseURL: s.url, apiKey: apiKey || 'no-key', maxRetries: 2, timeout: 60_000 });
  const cache = new TeacherCache(s.cache);
  const proposals: Proposal[] = [...plan.proposals];
  for (const q of questions) {
    const body = {
      model: s.model,
      temperature: 0,
      messages: [
        {
          role: 'system',
          content: 'You compare two versions of an agent harness. Answer with one JSON object {"match": NAME or null, "reason": TEXT} and nothing else.',
        },
        {
          role: 'user',
          content: `In version A there is this ${q.kind}:\n${q.text}\n\nVersion B has these ${q.kind}s that A does not have:\n${q.candidates.map((c) => `- ${c.text}`).join('\n')}\n\nIs one of them the same ${q.kind}, renamed or reworded? Give its name as "match", or null.`,
        },
      ],
    };
    const key = TeacherCache.key(s.url, body);
    let response = (await cache.get(key)) as { choices?: { message?: { content?: string | null } }[] } | undefined;
    if (!response) {
      try {
        response = await client.chat.completions.create(body as never);
      } catch (e) {
        throw new HsaError('HSA_TEACHER_UNAVAILABLE', `--model-url ${s.url}: ${(e as Error).message.split('\n')[0]}`, 1);
      }
      await cache.put(key, response);
    }
    const content = response?.choices?.[0]?.message?.content ?? '';
    const answer = parseAnswer(content);
    if (!answer) {
      warn(`migrate plan: the model's answer for ${q.kind} "${q.from}" is not the JSON asked for; no proposal`);
      continue;
    }
    if (answer.match === null) continue;
    if (!q.candidates.some((c) => c.name === answer.match)) {
      warn(`migrate plan: the model proposed "${answer.match}" for ${q.kind} "${q.from}", which is not one of B's unmatched ${q.kind}s; no proposal`);
      continue;
    }
    proposals.push({ kind: q.kind, from: q.from, to: answer.match, reason: answer.reason, model: s.model });
  }
  return { ...plan, proposals };
}

function parseAnswer(text: string): { match: string | null; reason: string } | null {
  const m = /\{[\s\S]*\}/.exec(text);
  if (!m) return null;
  try {
    const v = JSON.parse(m[0]) as { match?: unknown; reason?: unknown };
    if (v.match !== null && typeof v.match !== 'string') return null;
    return { match: v.match, reason: typeof v.reason === 'string' ? v.reason : '' };
  } catch {
    return null;
  }
}
