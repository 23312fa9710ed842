import { InvalidArgumentError, type Command } from 'commander';
import type { Io } from './io.js';
import type { VerifyCommandOptions } from './verify.js';
import type { DiffCommandOptions } from './diff.js';
import type { StatsCommandOptions } from './stats.js';
import type { ShowCommandOptions } from './show.js';

/** `verify`, `diff`, `show` and `stats`: the commands that read output folders (registered from main.ts). */
export function addReviewCommands(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command('verify')
    .description(
      'prove an output folder: parts against the manifest, record shapes, unique ids, the balance, and the checks augment ran (exit 0 sound, 1 problems, 2 unreadable)',
    )
    .argument('<out>', 'output folder (with manifest.json)')
    .option('--sources <glob...>', 'the source trajectories: with --harness, every exact variant is round-tripped to its source')
    .option(
      '--harness <path>',
      "the run's harness: rebuild each record's state (its hash must match) and run the engine's leak check (\"inline\", or omitted with --sources, for a run without a harness folder)",
    )
    .option('--json', 'print one JSON report on stdout')
    .option('-q, --quiet', 'no progress or summary on stderr')
    .action(async (out: string, o: Omit<VerifyCommandOptions, 'out'>) => {
      setCode(await (await import('./verify.js')).verifyCommand({ out, ...o }, io));
    });

  program
    .command('diff')
    .description(
      'compare two output folders (or two part files) by record id: manifest first, then per stage only in A, only in B, changed (field by field), identical (exit 0 identical, 1 different, 2 error)',
    )
    .argument('<a>', 'output folder or part file')
    .argument('<b>', 'output folder or part file')
    .option('--limit <n>', 'changed records shown in full per stage (the rest are counted)', count, 10)
    .option(
      '--ignore <glob...>',
      'key paths left out of the comparison: meta.source_file, meta.**, messages.*.content (dots separate keys; * one key, ** any depth)',
    )
    .option('--stage <stage...>', 'only these stages (sft, opd, rl, rejects)')
    .option('--json', 'print one JSON document on stdout')
    .option('--html <file>', 'also write the report as one self-contained HTML page')
    .option('-q, --quiet', 'no progress on stderr')
    .action(async (a: string, b: string, o: Omit<DiffCommandOptions, 'a' | 'b'>) => {
      setCode(await (await import('./diff.js')).diffCommand({ a, b, ...o }, io));
    });

  program
    .command('stats')
    .description(
      'what a reviewer looks at before signing off: records per stage and part, rejects, transforms and their parameters, name diversity, sizes, coverage',
    )
    .argument('<out>', 'output folder (with manifest.json)')
    .option('--json', 'print one JSON document on stdout')
    .option('--html <file>', 'also write the report as one self-contained HTML page with inline SVG charts')
    .option('-q, --quiet', 'no progress on stderr')
    .action(async (out: string, o: Omit<StatsCommandOptions, 'out'>) => {
      setCode(await (await import('./stats.js')).statsCommand({ out, ...o }, io));
    });

  program
    .command('show')
    .description(
      'one output record as a reviewer reads it: rename tables, the system prompt by section against the source, the conversation beside the source, the checks',
    )
    .argument('<out>', 'output folder (with manifest.json)')
    .requiredOption('--id <id>', 'record id: SOURCE~vK (SFT), SOURCE~vK#J (OPD), SOURCE~src, or an RL index')
    .option('--sources <glob...>', 'the source trajectories (default: the kept source SOURCE~src in the folder, when the run kept sources)')
    .option(
      '--harness <path>',
      "the run's harness: rebuild the record's state and run the engine's leak check and round trip (\"inline\", or omitted with --sources, for a run without a harness folder)",
    )
    .option('--html <file>', 'also write the view as one self-contained HTML page')
    .option('--json', 'print the view as JSON on stdout')
    .action(async (out: string, o: Omit<ShowCommandOptions, 'out'>) => {
      setCode(await (await import('./show.js')).showCommand({ out, ...o }, io));
    });
}

function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}
