import { readFileSync } from 'node:fs';

/** hsa's version, read once from package.json. */
export const HSA_VERSION: string = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * The engine's behaviour version, held by the resume fingerprint (and so stated in every manifest):
 * bumped when engine-level behaviour changes output bytes, so a resumed run never mixes parts made
 * by different behaviour (DESIGN §5.12). A transform's own changes bump that transform's version.
 * 2: OPD prompt selection (`opd.prompts`, default 1 per output record; CHANGELOG.md).
 * 3: the direct state builder of small inline harnesses (src/transform/direct.ts; CHANGELOG.md).
 * 4: OPD prompts cut before a run of assistant messages, never inside one (CHANGELOG.md).
 * 5: argument and schema keys written as own keys, `__proto__` included (CHANGELOG.md).
 */
export const ENGINE_VERSION = 5;
