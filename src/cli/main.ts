import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HsaError } from '../errors.js';
import { HSA_VERSION } from '../version.js';
import { inspectCommand } from './inspect.js';
import { previewCommand, type PreviewOptions } from './preview.js';
import { transformsCommand } from './transforms.js';
import { processIo, type Io } from './io.js';
import { validateCommand } from './validate.js';

/**
 * Build the program. Each action calls a command function with a typed options object and stores
 * its exit code; `run` is the one place that turns errors into messages and exit codes.
 */
function buildProgram(io: Io, setCode: (code: number) => void): Command {
  const program = new Command('hsa')
    .description('Harness-State Augmentation: show agent trajectories under many task-preserving variants of their harness')
    .version(HSA_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();

  program
    .command('validate')
    .description('check a harness snapshot and, optionally, trajectories against it (exit 0 valid, 1 problems, 2 unreadable input)')
    .argument('<harness>', 'harness folder (with harness.yaml) or a single harness YAML file')
    .option('-t, --trajectories <glob...>', 'trajectory JSONL files or globs (quote globs)')
    .option('--json', 'print a machine-readable report on stdout')
    .action(async (harness: string, o: { trajectories?: string[]; json?: boolean }) => {
      setCode(await validateCommand({ harness, ...o }, io));
    });

  program
    .command('inspect')
    .description('summarise a harness snapshot, or print its rendered system prompt')
    .argument('<harness>', 'harness folder (with harness.yaml) or a single harness YAML file')
    .option('--render', 'print exactly the rendered system prompt (no trailing newline added)')
    .addOption(new Option('--context <file.json>', 'JSON file with the trajectory context that fills template slots'))
    .option('--json', 'print JSON on stdout')
    .action(async (harness: string, o: { render?: boolean; context?: string; json?: boolean }) => {
      setCode(await inspectCommand({ harness, ...o }, io));
    });

  program
    .command('transforms')
    .description('list every registered transform with its family, class, options and defaults')
    .option('--plugin <file...>', 'load user transforms from these modules (.js/.mjs)')
    .option('--json', 'print JSON on stdout')
    .action(async (o: { plugin?: string[]; json?: boolean }) => {
      setCode(await transformsCommand(o, io));
    });

  program
    .command('preview')
    .description('print K augmented variants of one record with their rewrite plans and check results')
    .argument('<harness>', 'harness folder (with harness.yaml) or a single harness YAML file')
    .requiredOption('-t, --trajectories <file>', 'trajectory JSONL file holding the record')
    .requiredOption('--id <id>', 'id of the record to preview')
    .option('--seed <seed>', 'run seed', '0')
    .option('-k, --variants <k>', 'number of variants', parseCount, 3)
    .option('--transforms <ids...>', 'only these transforms (comma or space separated), with their defaults')
    .option('--probability <p>', 'override the probability of every selected transform', parseFloat)
    .option('--plugin <file...>', 'load user transforms from these modules (.js/.mjs)')
    .option('--json', 'print JSON on stdout')
    .action(async (harness: string, o: Omit<PreviewOptions, 'harness'>) => {
      setCode(await previewCommand({ harness, ...o }, io));
    });

  return program;
}

function parseCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

/** Run the CLI on `argv` (without node and script). Never throws; returns the exit code. */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      if (e.code === 'commander.help') return e.exitCode === 0 ? 0 : 2;
      if (e.code === 'commander.executeSubCommandAsync') return e.exitCode;
      return 2;
    }
    if (e instanceof HsaError) {
      io.err(`hsa: ${e.message}\n`);
      return e.exitCode;
    }
    io.err(`hsa: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return 70;
  }
}
