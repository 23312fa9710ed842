import { readFileSync } from 'node:fs';

/** hsa's version, read once from package.json. */
export const HSA_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
