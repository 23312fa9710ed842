import { fail, list, name, num, obj, optional, record, shownValid, str, type Obj } from '../util/strict-read.js';
import type { HarnessFile } from './schema.js';

/**
 * harness.yaml read by hand: the value harnessFileSchema (schema.ts) gives for a file it accepts,
 * or null for any file it might not (then the schema reads it and words the problems). Objects are
 * rebuilt as zod rebuilds them: keys in the schema's order, absent optional keys left out, `body`
 * defaulted, lists copied, `variables` defaults, `tools.items` and `hooks` as they are.
 *
 * Why: every command that reads a harness parses its harness.yaml; the schema's first parse
 * generates and compiles a parser per object shape (~2 ms a harness, two for migrate apply), and
 * building the schema is more. Kept in step with the schema by test/harness-file-quick.test.ts.
 */
export function quickHarnessFile(v: unknown): HarnessFile | null {
  return shownValid(() => harnessFile(v));
}

const names = (x: unknown) => list(x, name);
const strings = (x: unknown) => list(x, str);
const KINDS = new Set(['reply', 'strategy']);
const NAMINGS = new Set(['agent-skills', 'snake', 'kebab', 'identifier']);
const oneOf = (set: Set<string>) => (x: unknown) => (typeof x === 'string' && set.has(x) ? x : fail());

function section(x: unknown): Obj {
  const s = obj(x, ['id', 'text']);
  return { id: name(s.id), text: str(s.text) };
}

function catalog(x: unknown): Obj {
  const out: Obj = {};
  optional(out, obj(x, ['id', 'title', 'intro']), [
    ['id', name],
    ['title', name],
    ['intro', str],
  ]);
  return out;
}

function prompt(x: unknown): Obj {
  const out: Obj = {};
  optional(out, obj(x, ['dir', 'order', 'pinned', 'unordered', 'user_sections', 'separator', 'sections', 'catalog']), [
    ['dir', str],
    ['order', names],
    ['pinned', names],
    ['unordered', names],
    ['user_sections', names],
    ['separator', str],
    ['sections', (s) => list(s, section)],
    ['catalog', catalog],
  ]);
  return out;
}

function variable(x: unknown): Obj | null {
  if (x === null) return null;
  const src = obj(x, ['description', 'default']);
  const out: Obj = {};
  optional(out, src, [
    ['description', str],
    ['default', (d) => d],
  ]);
  return out;
}

function inlineSkill(x: unknown): Obj {
  const src = obj(x, ['name', 'description', 'kind', 'tools', 'body']);
  const out: Obj = { name: name(src.name), description: str(src.description) };
  optional(out, src, [
    ['kind', oneOf(KINDS)],
    ['tools', strings],
  ]);
  out.body = 'body' in src ? str(src.body) : '';
  return out;
}

function loader(x: unknown): Obj | null {
  if (x === null) return null;
  const src = obj(x, ['tool', 'argument']);
  return { tool: name(src.tool), argument: name(src.argument) };
}

function skills(x: unknown): Obj {
  const out: Obj = {};
  optional(out, obj(x, ['dir', 'naming', 'loader', 'items', 'unordered_lists']), [
    ['dir', str],
    ['naming', oneOf(NAMINGS)],
    ['loader', loader],
    ['items', (s) => list(s, inlineSkill)],
    ['unordered_lists', names],
  ]);
  return out;
}

function tools(x: unknown): Obj {
  const out: Obj = {};
  optional(out, obj(x, ['sources', 'items']), [
    ['sources', names],
    ['items', (s) => list(s, (item) => item)],
  ]);
  return out;
}

/** A hooks file name, a list of hooks or a mapping, as it is (the schema's custom test). */
function hooks(x: unknown): unknown {
  return (typeof x === 'string' && x.length > 0) || (x !== null && typeof x === 'object') ? x : fail();
}

const version = (x: unknown): string => (typeof x === 'number' ? String(num(x)) : name(x));
const KEYS = ['name', 'version', 'description', 'prompt', 'variables', 'skills', 'tools', 'hooks', 'hook_messages'];

function harnessFile(x: unknown): HarnessFile {
  const src = obj(x, KEYS);
  const out: Obj = { name: name(src.name), version: version(src.version) };
  optional(out, src, [
    ['description', str],
    ['prompt', prompt],
    ['variables', (v) => record(v, variable)],
    ['skills', skills],
    ['tools', tools],
    ['hooks', hooks],
    ['hook_messages', (h) => ({ name_prefix: name(obj(h, ['name_prefix']).name_prefix) })],
  ]);
  return out as HarnessFile;
}
