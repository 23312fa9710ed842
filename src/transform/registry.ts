import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { HsaError } from '../errors.js';
import { builtinTransforms } from './builtins.js';
import type { AnyTransform } from './define.js';

export class PluginError extends HsaError {
  constructor(message: string) {
    super('HSA_BAD_PLUGIN', message, 2);
    this.name = 'PluginError';
  }
}

const FAMILIES = ['skills', 'tools', 'prompt', 'hooks'];
const CLASSES = ['exact', 'semantic', 'behavioural'];

/**
 * The built-in transforms (as handed in) plus the user's plugins (`--plugin file.js`), in
 * application order: built-ins first, then plugins in the order given. A plugin module
 * default-exports one transform (the shape `defineTransform` takes) or an array of them, or
 * exports `transforms`.
 */
export async function loadRegistry(plugins: readonly string[] = []): Promise<Record<string, AnyTransform>> {
  const registry: Record<string, AnyTransform> = { ...(await builtinTransforms()) };
  for (const file of plugins) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(path.resolve(file)).href)) as Record<string, unknown>;
    } catch (e) {
      throw new PluginError(`${file}: cannot load plugin: ${(e as Error).message}`);
    }
    const exported = mod.transforms ?? mod.default;
    const list = Array.isArray(exported) ? exported : [exported];
    if (exported === undefined) throw new PluginError(`${file}: a plugin must default-export a transform (or export \`transforms\`)`);
    list.forEach((t, i) => {
      const where = `${file}${list.length > 1 ? `: transforms[${i}]` : ''}`;
      const problems = checkShape(t);
      if (problems.length) throw new PluginError(`${where}: ${problems.join('; ')}`);
      const def = t as AnyTransform;
      if (registry[def.id]) throw new PluginError(`${where}: id "${def.id}" is already registered`);
      registry[def.id] = def;
    });
  }
  return registry;
}

function checkShape(t: unknown): string[] {
  if (t === null || typeof t !== 'object') return ['not a transform object'];
  const o = t as Record<string, unknown>;
  const out: string[] = [];
  if (typeof o.id !== 'string' || !/^[a-z][a-z0-9-]*\.[a-z][a-z0-9-]*$/.test(o.id)) out.push('id must look like "<family>.<name>" (lower case)');
  if (typeof o.family !== 'string' || !FAMILIES.includes(o.family)) out.push(`family must be one of ${FAMILIES.join(', ')}`);
  if (typeof o.class !== 'string' || !CLASSES.includes(o.class)) out.push(`class must be one of ${CLASSES.join(', ')}`);
  if (typeof o.version !== 'number' || !Number.isInteger(o.version)) out.push('version must be an integer');
  if (typeof o.description !== 'string' || o.description === '') out.push('description is required');
  if (typeof o.apply !== 'function') out.push('apply must be a function');
  const opts = o.options as { safeParse?: unknown } | undefined;
  if (!opts || typeof opts.safeParse !== 'function') out.push('options must be a zod schema');
  else {
    const r = (opts as z.ZodType).safeParse({});
    if (!r.success) out.push('options must parse {} (every option needs a default)');
    else if (typeof (r.data as { p?: unknown }).p !== 'number') out.push('options must have a numeric `p` (probability) with a default');
  }
  return out;
}

/** A transform's options as JSON Schema (for `hsa transforms` and the schema snapshot test). */
export function optionsJsonSchema(def: AnyTransform): unknown {
  try {
    return z.toJSONSchema(def.options, { io: 'input' });
  } catch {
    return null;
  }
}

/** A transform's option defaults. */
export function optionDefaults(def: AnyTransform): Record<string, unknown> {
  const r = def.options.safeParse({});
  return r.success ? (r.data as Record<string, unknown>) : {};
}
