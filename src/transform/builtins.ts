import { getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import type { AnyTransform } from './define.js';

// Its own small module: the CLI hands the built-ins in before it knows the command, and loading
// the registry (zod) there would slow every command, `--version` too.

const BUILTINS_KEY = 'hsa:builtin-transforms';

/**
 * Hand the registry its built-in transforms: the URL of a module that exports them as
 * `builtinTransforms` (the CLI and the public API hand in transforms/index.ts, tests too), so the
 * engine never imports the plugin folder. Kept as thread environment data: the worker threads a
 * run starts after this call load the same module.
 */
export function useBuiltinTransforms(moduleUrl: string): void {
  setEnvironmentData(BUILTINS_KEY, moduleUrl);
}

/** The URL handed in, if any. */
export function builtinTransformsModule(): string | undefined {
  const url = getEnvironmentData(BUILTINS_KEY);
  return typeof url === 'string' ? url : undefined;
}

/** The built-in transforms handed in (the module is loaded once: `import` keeps it). */
export async function builtinTransforms(): Promise<Record<string, AnyTransform>> {
  const url = builtinTransformsModule();
  if (url === undefined) throw new Error('no built-in transforms: the caller hands them in with useBuiltinTransforms');
  const mod = (await import(url)) as { builtinTransforms?: Record<string, AnyTransform> };
  if (!mod.builtinTransforms) throw new Error(`${url}: exports no builtinTransforms`);
  return mod.builtinTransforms;
}
