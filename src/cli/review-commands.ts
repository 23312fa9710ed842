import type { Command } from 'commander';
import type { Io } from './io.js';
import { verifyCommand, type VerifyCommandOptions } from './verify.js';

/** `verify`, `diff`, `show` and `stats`: the commands that read output folders (registered from main.ts). */
export function addReviewCommands(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command('verify')
    .description('prove an output folder: parts against the manifest, record shapes, unique ids, the balance, and the checks augment ran (exit 0 sound, 1 problems, 2 unreadable)')
    .argument('<out>', 'output folder (with manifest.json)')
    .option('--sources <glob...>', 'the source trajectories: with --harness, every exact variant is round-tripped to its source')
    .option('--harness <path>', "the run's harness: rebuild each record's state (its hash must match) and run the engine's leak check")
    .option('--json', 'print one JSON report on stdout')
    .option('-q, --quiet', 'no progress or summary on stderr')
    .action(async (out: string, o: Omit<VerifyCommandOptions, 'out'>) => {
      setCode(await verifyCommand({ out, ...o }, io));
    });
}
