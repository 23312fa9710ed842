import { optionDefaults, optionsJsonSchema, loadRegistry } from '../transform/registry.js';
import type { Io } from './io.js';

export interface TransformsOptions {
  plugin?: string[];
  json?: boolean;
}

/** `hsa transforms`: every registered transform with family, class, description, options and defaults. */
export async function transformsCommand(opts: TransformsOptions, io: Io): Promise<number> {
  const registry = await loadRegistry(opts.plugin ?? []);
  const rows = Object.values(registry).map((t) => ({
    id: t.id,
    family: t.family,
    class: t.class,
    version: t.version,
    description: t.description,
    defaults: optionDefaults(t),
    options: optionsJsonSchema(t),
  }));
  if (opts.json) {
    io.out(`${JSON.stringify(rows, null, 2)}\n`);
    return 0;
  }
  const lines: string[] = [];
  for (const r of rows) {
    lines.push(`${r.id}  (${r.family}, ${r.class}, v${r.version})`);
    lines.push(`  ${r.description}`);
    const props = (r.options as { properties?: Record<string, { description?: string }> } | null)?.properties ?? {};
    for (const [key, value] of Object.entries(r.defaults)) {
      lines.push(`  --${key.padEnd(10)} default ${JSON.stringify(value)}${props[key]?.description ? `  ${props[key].description}` : ''}`);
    }
  }
  io.out(`${lines.join('\n')}\n`);
  return 0;
}
