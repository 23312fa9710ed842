import type { Importer } from '../importer.js';
import anthropic from './anthropic.js';
import gemini from './gemini.js';
import glaive from './glaive.js';
import hermes from './hermes.js';
import openaiLog from './openai-log.js';
import responses from './responses.js';
import sharegpt from './sharegpt.js';
import toolace from './toolace.js';
import xlam from './xlam.js';

/** Every built-in importer by id, listed by hand (nothing scans the file system). */
export const importers = {
  sharegpt,
  hermes,
  anthropic,
  'openai-log': openaiLog,
  responses,
  xlam,
  toolace,
  glaive,
  gemini,
} satisfies Record<string, Importer>;

export type ImporterId = keyof typeof importers;

export const IMPORTER_IDS = Object.keys(importers) as ImporterId[];
