import { createRequire } from 'node:module';

// zod is ~95 modules (~50 ms to load). The schemas a hand reader stands beside (a trajectory line,
// a harness file, a tool, a migration plan) are only needed when the hand reader gives up, so the
// modules that hold them take zod from here, on first use: `hsa migrate apply` or `hsa validate`
// on valid input never loads it. `require` gives zod's CommonJS build; modules that need zod
// whenever they load (the transforms' options, config schemas) import it as usual, so a run that
// loads both holds two copies, which only share plain data (issues, parsed values).
let zodModule: typeof import('zod') | undefined;

/** The zod module, loaded on first use. */
export const zod = (): typeof import('zod') => (zodModule ??= createRequire(import.meta.url)('zod') as typeof import('zod'));
