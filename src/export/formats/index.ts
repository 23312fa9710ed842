import llamafactory from './llamafactory.js';
import swift from './swift.js';
import trl from './trl.js';
import verlRl from './verl-rl.js';
import verlSft from './verl-sft.js';
import type { ExportFormat } from '../types.js';

/** Every trainer format `hsa export --to` knows, by id (listed by hand, like the transforms). */
export const formats = {
  'verl-sft': verlSft,
  'verl-rl': verlRl,
  llamafactory,
  swift,
  trl,
} satisfies Record<string, ExportFormat>;

export type FormatId = keyof typeof formats;
