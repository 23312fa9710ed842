// What the generator reads from the hand-written harness: skill bodies, tool schemas, hook rules.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import YAML from 'yaml';
import { HARNESS_DIR, MAX_CHARS, chars } from './common.mjs';

// ---------------------------------------------------------------------------------------------
// Harness pieces the generator needs directly (skill bodies, tool schemas, hook templates)
// ---------------------------------------------------------------------------------------------

export const SKILL_BODY = {};
for (const dir of readdirSync(path.join(HARNESS_DIR, 'skills')).sort()) {
  const text = readFileSync(path.join(HARNESS_DIR, 'skills', dir, 'SKILL.md'), 'utf8');
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(text);
  SKILL_BODY[dir] = (m ? text.slice(m[0].length) : text).trim();
}

export const TOOL_SCHEMA = {};
for (const file of readdirSync(path.join(HARNESS_DIR, 'tools'))
  .filter((f) => f.endsWith('.json'))
  .sort()) {
  const doc = JSON.parse(readFileSync(path.join(HARNESS_DIR, 'tools', file), 'utf8'));
  const list = Array.isArray(doc) ? doc : (doc.tools ?? doc.result?.tools ?? [doc]);
  for (const t of list) {
    if (t.type === 'function') TOOL_SCHEMA[t.function.name] = t.function.parameters;
    else TOOL_SCHEMA[t.name] = t.inputSchema;
  }
}
export const ajv = new Ajv({ allErrors: true });
export const VALIDATE = Object.fromEntries(Object.entries(TOOL_SCHEMA).map(([n, s]) => [n, ajv.compile(s)]));

export const HOOKS = YAML.parse(readFileSync(path.join(HARNESS_DIR, 'hooks.yaml'), 'utf8')).hooks;
export const STOP_GATE = HOOKS.find((h) => h.id === 'stop_gate');
export const PRICE_RE = new RegExp(STOP_GATE.checks.find((c) => c.require_tool).require_tool.when_reply_matches, 'u');
export const PRICE_TOOLS = new Set(STOP_GATE.checks.find((c) => c.require_tool).require_tool.tools);
export const WHITELIST_RES = HOOKS.find((h) => h.id === 'refusal_whitelist').checks[0].forbid.regex.map((r) => new RegExp(r, 'u'));
export const gateFeedback = (reply) =>
  STOP_GATE.feedback.replace(/\{\{\s*chars\s*\}\}/g, String(chars(reply))).replace(/\{\{\s*max_chars\s*\}\}/g, String(MAX_CHARS));
