import { fail, list, name, obj, optional, shownValid, str, type Obj } from '../util/strict-read.js';
import { HOOK_EVENT_ALIASES, type HookInput } from './schema.js';

/**
 * A hook and a SKILL.md front matter read by hand: the value hookSchema / skillFrontMatterSchema
 * (schema.ts) give for an input they accept, or null for any they might not (then the schema reads
 * it and words the problems). Objects are rebuilt as zod rebuilds them: keys in the schema's order,
 * absent optional keys left out; a front matter's other keys follow, as written.
 *
 * Why: a harness's hooks and skills are read by every command that loads it; building the two
 * schemas and their first parses cost ~5 ms of a start-up. Kept in step with the schemas by
 * test/harness-parts-quick.test.ts.
 */
export function quickHook(v: unknown): HookInput | null {
  return shownValid(() => hook(v) as HookInput);
}

/** See quickHook. */
export function quickSkillFrontMatter(v: unknown): SkillFrontMatter | null {
  return shownValid(() => frontMatter(v));
}

export interface SkillFrontMatter {
  name: string;
  description: string;
  kind?: 'reply' | 'strategy';
  tools?: string[];
  [key: string]: unknown;
}

const HOOK_ID = /^[A-Za-z][A-Za-z0-9_.-]*$/;
const oneOf = (values: readonly string[]) => (x: unknown) => (typeof x === 'string' && values.includes(x) ? x : fail());
/** z.number().int().positive(): a safe integer above zero. */
const count = (x: unknown) => (typeof x === 'number' && Number.isSafeInteger(x) && x > 0 ? x : fail());
const names = (x: unknown) => list(x, name);

function check(x: unknown): Obj {
  const src = obj(x, ['max_chars', 'forbid', 'require_tool', 'schema_valid', 'max_tool_rounds']);
  const keys = Object.keys(src);
  if (keys.length !== 1) fail();
  const key = keys[0]!;
  const v = src[key];
  switch (key) {
    case 'max_chars':
    case 'max_tool_rounds':
      return { [key]: count(v) };
    case 'schema_valid':
      return v === true ? { schema_valid: true } : fail();
    case 'forbid': {
      const out: Obj = {};
      optional(out, obj(v, ['phrases', 'regex', 'target']), [
        ['phrases', names],
        ['regex', names],
        ['target', oneOf(['reply', 'arguments', 'user'])],
      ]);
      return { forbid: out };
    }
    default: {
      const r = obj(v, ['tools', 'intents', 'when_reply_matches']);
      const tools = names(r.tools);
      if (tools.length === 0) fail();
      const out: Obj = { tools };
      optional(out, r, [
        ['intents', (i) => list(i, str)],
        ['when_reply_matches', str],
      ]);
      return { require_tool: out };
    }
  }
}

const HOOK_KEYS = ['id', 'event', 'description', 'matcher', 'checks', 'action', 'channel', 'feedback', 'max_rounds', 'command', 'timeout'];

function hook(x: unknown): Obj {
  const src = obj(x, HOOK_KEYS);
  const id = src.id;
  if (typeof id !== 'string' || !HOOK_ID.test(id)) fail();
  // (Own keys only: the schema's test also takes an Object.prototype name, which is left to it.)
  const event = src.event;
  if (typeof event !== 'string' || !Object.hasOwn(HOOK_EVENT_ALIASES, event)) fail();
  const out: Obj = { id, event };
  optional(out, src, [
    ['description', str],
    ['matcher', (m) => (typeof m === 'string' ? m : list(m, str))],
    ['checks', (c) => list(c, check)],
    ['action', oneOf(['retry', 'reject', 'force_reply'])],
    ['channel', oneOf(['user', 'system', 'tool'])],
    ['feedback', str],
    ['max_rounds', count],
    ['command', name],
    ['timeout', (t) => (typeof t === 'number' && Number.isFinite(t) && t > 0 ? t : fail())],
  ]);
  return out;
}

const KNOWN = ['name', 'description', 'kind', 'tools'];

function frontMatter(x: unknown): SkillFrontMatter {
  if (x === null || typeof x !== 'object' || Array.isArray(x) || Object.getPrototypeOf(x) !== Object.prototype) fail();
  const src = x as Obj;
  const out: Obj = { name: name(src.name), description: name(src.description) };
  optional(out, src, [
    ['kind', oneOf(['reply', 'strategy'])],
    ['tools', names],
  ]);
  for (const k of Object.keys(src)) {
    if (KNOWN.includes(k)) continue;
    if (k === '__proto__' || src[k] === undefined) fail();
    out[k] = src[k];
  }
  return out as SkillFrontMatter;
}
