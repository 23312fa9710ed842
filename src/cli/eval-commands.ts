import { InvalidArgumentError, type Command } from 'commander';
import type { EvalOptions } from './eval.js';
import type { Io } from './io.js';
import type { JudgeCalibrateOptions } from './judge.js';

function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a whole number');
  return n;
}

function number(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}

function collect(v: string, prev: string[] = []): string[] {
  return [...prev, v];
}

/** `eval` and `judge calibrate`: a model (or a harness edit) measured, and the judge checked against people. */
export function addEvalCommands(program: Command, io: Io, setCode: (code: number) => void): void {
  program
    .command('eval')
    .description(
      'run an OpenAI-compatible model through every episode of an eval set and report scores and the robustness gap per transform family; or --harness A --harness B on dev records (docs/eval.md)',
    )
    .option('-c, --config <file>', 'eval config (YAML/JSON: set, model, judge, bootstrap…; paths relative to it); flags override it')
    .option('--set <path...>', 'RL parts, globs or output folders (built with --keep-source: the ~src rows are the source harness)')
    .option('--harness <path>', 'harness A, then harness B (give it twice) to compare on --trajectories', collect)
    .option('-t, --trajectories <glob...>', 'the dev records for --harness A --harness B')
    .option('--model-url <url>', 'OpenAI-compatible base URL of the model under test')
    .option('--model <name>', 'model name')
    .option('--key-env <name>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--concurrency <n>', 'episodes in flight (default 4; never changes the report)', count)
    .option('--cache <dir>', 'answer cache (default $HSA_CACHE_DIR, else ~/.cache/hsa/teacher)')
    .option('--require-cache', 'fail on a request missing from the cache')
    .option('--max-retries <n>', 'retries per request on 429/5xx/timeouts/connection errors (default 5)', count)
    .option('--timeout <s>', 'seconds per request (default 60)', number)
    .option('--temperature <t>', 'sampling temperature', number)
    .option('--max-tokens <n>', 'max tokens per answer', count)
    .option('--reward-config <file>', 'reward weights and penalties (docs/reward.md)')
    .option('--tokenizer <name>', 'reasoning tokens: qwen3 (default) or estimate')
    .option('--no-judge', 'reply quality by reference token F1 even when the config has a judge')
    .option('--votes <k>', 'judge votes per reply (overrides judge.votes)', count)
    .option('--bootstrap <n>', 'bootstrap resamples for the intervals (default 1000)', count)
    .option('--bootstrap-seed <seed>', 'seed of the bootstrap (default 0)')
    .option('--fail-below <r>', 'list rows scoring below this reward as failures (default 0.5)', number)
    .option('--tolerance <d>', 'harness comparison: |B − A| up to this is a tie (default 0.05)', number)
    .option('--json', 'print the report as JSON on stdout')
    .option('--html <file>', 'also write the report as one self-contained HTML page')
    .option('-q, --quiet', 'no counters on stderr')
    .action(async (o: EvalOptions) => {
      setCode(await (await import('./eval.js')).evalCommand(o, io));
    });

  const judge = program.command('judge').description('the reply-quality judge (rubric, k votes) used by eval and the reward');
  judge
    .command('calibrate')
    .description("judge human-labelled replies and report agreement per criterion: accuracy, Cohen's kappa, confusion table")
    .requiredOption('-c, --config <file>', 'eval config with a judge: section')
    .requiredOption('--labels <file>', 'JSONL: {"id", "turn"?, "reply", "labels": {criterion: level}} per line')
    .option('--set <path...>', 'the rows the labels name (RL parts or output folders; default: set: of the config)')
    .option('--votes <k>', 'votes per reply (overrides judge.votes)', count)
    .option('--aggregate <how>', 'majority or mean (overrides judge.aggregate)')
    .option('--cache <dir>', 'answer cache')
    .option('--require-cache', 'fail on a request missing from the cache')
    .option('--concurrency <n>', 'replies judged at once (default 4)', count)
    .option('--json', 'print JSON on stdout')
    .action(async (o: JudgeCalibrateOptions) => {
      setCode(await (await import('./judge.js')).judgeCalibrateCommand(o, io));
    });
}
