import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/builtins.ts'],
    // Two files share the two cores, so a CLI-heavy test takes longer than alone: room to spare.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on CI's two. Most files spend their
    // time in `hsa` child processes, so one file per core keeps both busy (isolated forks still).
    maxWorkers: availableParallelism(),
  },
});
