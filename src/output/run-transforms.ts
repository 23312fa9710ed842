import type { RunConfig } from '../config/augment-config.js';
import { ConfigError } from '../errors.js';
import { loadRegistry } from '../transform/registry.js';
import { splitWordLists } from '../transform/split.js';
import { resolveTransforms, type ResolvedTransform } from '../transform/variant.js';
import { builtinWords, mergeWordLists } from '../words/selection.js';
import type { WordLists } from '../words/types.js';
import { setFormatMode } from '../util/json-schema.js';

// Its own module so a worker thread loads only what producing records needs (not the harness
// loader, the YAML parser, the part writer or the teacher cache of run.ts).

/** The run's transforms and word lists (every worker thread builds its own from the config). */
export async function runTransforms(cfg: RunConfig): Promise<{ transforms: ResolvedTransform[]; words: WordLists }> {
  const registry = await loadRegistry(cfg.plugins);
  const transforms = heldOut(resolveTransforms(registry, cfg.transforms, cfg.teacher.mode === 'rewrite' ? 'rewrite' : 'teacher'), cfg, Object.keys(registry));
  const merged = mergeWordLists(builtinWords, cfg.words);
  const words = cfg.split ? splitWordLists(merged, cfg.split) : merged;
  setFormatMode(cfg.formats);
  return { transforms, words };
}

/** The transforms of a run without the ones held out of training (`split_holdout`, off when `split: train`). */
function heldOut<T extends { def: { id: string } }>(transforms: T[], cfg: RunConfig, known: readonly string[]): T[] {
  const unknown = cfg.splitHoldout.filter((id) => !known.includes(id));
  if (unknown.length)
    throw new ConfigError(`split_holdout: unknown transform${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} (hsa transforms lists them)`);
  return cfg.split === 'train' ? transforms.filter((t) => !cfg.splitHoldout.includes(t.def.id)) : transforms;
}
