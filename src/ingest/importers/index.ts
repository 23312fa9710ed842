import type { Importer } from '../importer.js';
import anthropic from './anthropic.js';
import hermes from './hermes.js';
import openaiLog from './openai-log.js';
import sharegpt from './sharegpt.js';

/** Every built-in importer by id, listed by hand (nothing scans the file system). */
export const importers = {
  sharegpt,
  hermes,
  anthropic,
  'openai-log': openaiLog,
} satisfies Record<string, Importer>;

export type ImporterId = keyof typeof importers;

export const IMPORTER_IDS = Object.keys(importers) as ImporterId[];
