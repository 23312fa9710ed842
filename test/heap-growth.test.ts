import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { boundHeapGrowth, HEAP_GROWING_PERCENT, resetHeapGrowthForTests } from '../src/util/heap.js';

const ROOT = path.resolve(import.meta.dirname, '..');

describe('boundHeapGrowth', () => {
  afterEach(() => resetHeapGrowthForTests());

  it('sets the growing factor once, as a V8 flag', () => {
    const seen: string[] = [];
    expect(boundHeapGrowth([], (f) => seen.push(f))).toBe(true);
    expect(boundHeapGrowth([], (f) => seen.push(f))).toBe(false);
    expect(seen).toEqual([`--heap-growing-percent=${HEAP_GROWING_PERCENT}`]);
  });

  it("leaves a factor given on node's command line (either spelling) as it is", () => {
    const seen: string[] = [];
    expect(boundHeapGrowth(['--heap-growing-percent=300'], (f) => seen.push(f))).toBe(false);
    resetHeapGrowthForTests();
    expect(boundHeapGrowth(['--max-old-space-size=512', '--heap_growing_percent=20'], (f) => seen.push(f))).toBe(false);
    expect(seen).toEqual([]);
  });

  it('is what bin/hsa does before it runs a command (the flag V8 takes, no warning)', () => {
    // V8 reports an unknown flag on stdout ("unrecognized flag"): the one set must be one this Node knows.
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bin/hsa'), '--version'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\S+\n$/);
    expect(r.stderr).toBe('');
    // (Peak RSS itself is the bench's to measure; this holds the wiring.)
    expect(readFileSync(path.join(ROOT, 'bin/hsa'), 'utf8')).toMatch(/^boundHeapGrowth\(\);$/m);
    const probe = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `import { boundHeapGrowth } from ${JSON.stringify(path.join(ROOT, 'dist/src/util/heap.js'))}; console.log(boundHeapGrowth());`,
      ],
      { encoding: 'utf8' },
    );
    expect(probe.stdout.trim()).toBe('true');
    expect(probe.stderr).toBe('');
  });
});
