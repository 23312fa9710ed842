import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HsaError } from '../errors.js';
import { HSA_VERSION } from '../version.js';
import { useBuiltinTransforms } from '../transform/builtins.js';
import { addReviewCommands } from './review-commands.js';
import type { AugmentFlags } from '../config/augment-config.js';
import type { PreviewOptions } from './preview.js';
import { processIo, type Io } from './io.js';
import type { ImportCommandOptions } from './import.js';
import type { InitCommandOptions } from './init.js';
import type { SystemPromptMode } from '../trajectory/check.js';

import type { EnvServeOptions } from './env.js';
import type { RewardOptions } from './reward.js';
import type { WordsSuggestOptions } from '../words/suggest.js';
import type { ExportFlags } from './export.js';
import type { MergeOptions } from './merge.js';
import type { EmitOptions } from './emit.js';
import type { ShardFlags } from '../scale/shard.js';

import { addEvalCommands } from './eval-commands.js';
import { addMigrateCommands } from './migrate-commands.js';

/** The built-in transforms the CLI hands the registry (loaded by the first command that needs them). */
const BUILTIN_TRANSFORMS = new URL('../../transforms/index.js', import.meta.url).href;

// Each command's module (and the engine under it) is imported inside its action, so `hsa --version`,
// `--help` and every command load only what they run (every module at once cost ~0.6 s of CPU per
// process, which dominated short runs).

/**
 * Build the program. Each action calls a command function with a typed options object and stores
 * its exit code; `run` is the one place that turns errors into messages and exit codes.
 */
export function buildProgram(io: Io, setCode: (code: number) => void): Command {
  const program = new Command('hsa')
    .description('Harness-State Augmentation: show agent trajectories under many task-preserving variants of their harness')
    .version(HSA_VERSION, '-V, --version')
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride();

  program
    .command('validate')
    .description('check a harness snapshot and, optionally, trajectories against it (exit 0 valid, 1 problems, 2 unreadable input)')
    .argument('[harness]', 'harness folder (with harness.yaml) or a single harness YAML file; omitted or "inline": each record\'s own tools and system message')
    .option('-t, --trajectories <glob...>', 'trajectory JSONL files or globs (quote globs)')
    .addOption(systemPromptOption())
    .addOption(formatsOption())
    .option('--json', 'print a machine-readable report on stdout (with the summary of problem kinds)')
    .option('--summary', 'after the problems, a table of problem kinds with counts and one example each')
    .action(
      async (
        harness: string | undefined,
        o: { trajectories?: string[]; json?: boolean; summary?: boolean; systemPrompt?: SystemPromptMode; formats?: string },
      ) => {
        const { formats, ...rest } = o;
        setCode(
          await (
            await import('./validate.js')
          ).validateCommand(
            { ...(harness !== undefined ? { harness } : {}), ...rest, ...(formats ? { formats: formats === 'assert' ? 'assertion' : 'annotation' } : {}) },
            io,
          ),
        );
      },
    );

  program
    .command('inspect')
    .description('summarise a harness snapshot, or print its rendered system prompt')
    .argument('<harness>', 'harness folder (with harness.yaml) or a single harness YAML file')
    .option('--render', 'print exactly the rendered system prompt (no trailing newline added)')
    .addOption(new Option('--context <file.json>', 'JSON file with the trajectory context that fills template slots'))
    .option('--json', 'print JSON on stdout')
    .action(async (harness: string, o: { render?: boolean; context?: string; json?: boolean }) => {
      setCode(await (await import('./inspect.js')).inspectCommand({ harness, ...o }, io));
    });

  program
    .command('transforms')
    .description('list every registered transform with its family, class, options and defaults')
    .option('--plugin <file...>', 'load user transforms from these modules (.js/.mjs)')
    .option('--json', 'print JSON on stdout')
    .action(async (o: { plugin?: string[]; json?: boolean }) => {
      setCode(await (await import('./transforms.js')).transformsCommand(o, io));
    });

  program
    .command('preview')
    .description('print K augmented variants of one record with their rewrite plans and check results')
    .argument(
      '[harness]',
      "harness folder (with harness.yaml) or a single harness YAML file; omitted: the config's harness, else the record's own tools and system message (inline)",
    )
    .requiredOption('-t, --trajectories <file>', 'trajectory JSONL file holding the record')
    .requiredOption('--id <id>', 'id of the record to preview')
    .option('-c, --config <file>', 'take the harness, transforms, their options, words, seed, system_prompt and split from this hsa.yaml')
    .option('--seed <seed>', "run seed (default: the config's, else 0)")
    .option('-k, --variants <k>', 'number of variants', parseCount, 3)
    .option('--transforms <ids...>', 'only these transforms (comma or space separated), with their defaults')
    .option('--probability <p>', 'override the probability of every selected transform', parseFloat)
    .option('--state-pool <n>', "shared harness states, as hsa augment (default: the config's state_pool, else 64; 0: a state per variant)", parseCount)
    .addOption(systemPromptOption())
    .option('--words <pack-or-file...>', "word packs to use instead of the config's words.packs, as hsa augment")
    .option('--split <split>', 'train or eval name pools, as hsa augment')
    .option('--plugin <file...>', 'load user transforms from these modules (.js/.mjs)')
    .option('--json', 'print JSON on stdout')
    .action(async (harness: string | undefined, o: Omit<PreviewOptions, 'harness'>) => {
      setCode(await (await import('./preview.js')).previewCommand({ ...(harness ? { harness } : {}), ...o }, io));
    });

  program
    .command('import')
    .description('convert logs of another format (sharegpt, hermes, anthropic, openai-log, responses, xlam, toolace, glaive, gemini) into hsa trajectory JSONL')
    .requiredOption(
      '--from <format>',
      'source format: sharegpt | hermes | anthropic | openai-log | responses (OpenAI Responses API) | xlam (xLAM/APIGen) | toolace (Python call text) | glaive (glaive v2 text) | gemini (Gemini / Vertex generateContent)',
    )
    .argument('<files...>', 'source files (JSONL, or a JSON array of records) or globs')
    .requiredOption('-o, --out <file>', 'trajectory JSONL to write')
    .option('--on-error <mode>', 'a line that cannot be converted: fail (default: report every one, write nothing) or skip (to the rejects file)')
    .option('--rejects <file>', 'skip mode: where bad lines go (default <out>.rejects.jsonl)')
    .option('--keep-prefixes', 'keep records whose conversation another record continues (API logs: one line per call); default: superseded, counted')
    .option('--json', 'print a machine-readable summary on stdout')
    .action(async (files: string[], o: Omit<ImportCommandOptions, 'files'>) => {
      setCode(await (await import('./import.js')).importCommand({ ...o, files }, io));
    });

  program
    .command('init')
    .description('infer a harness folder (tools, prompt sections, skills) from trajectories, so that `hsa validate DIR -t <same files>` passes')
    .requiredOption('-t, --trajectories <glob...>', 'trajectory JSONL files or globs (quote globs)')
    .requiredOption('-o, --out <dir>', 'harness folder to write')
    .option('--name <name>', 'harness name (default: the folder name)')
    .option('--harness-version <version>', 'harness version (default 0.1.0)')
    .option('--force', 'write into a folder that is not empty (files hsa init writes are replaced)')
    .option('--json', 'print a machine-readable report on stdout')
    .action(async (o: InitCommandOptions) => {
      setCode(await (await import('./init.js')).initCommand(o, io));
    });

  addAugmentOptions(
    program.command('augment').description('build SFT / OPD / RL shards and a manifest from a harness and trajectories (deterministic, resumable)'),
  )
    .option('--force', 'start over in an out folder that holds another run')
    .option(
      '--check [out]',
      'regenerate into a temporary folder and compare with OUT (default --out): exit 0 nothing drifted, 1 drifted; OUT is never modified',
    )
    .option(
      '--num-shards <m>',
      "write one shard of M (parts p with p mod M = the index; default: HSA_NUM_SHARDS, the config's shards:, SLURM_ARRAY_TASK_COUNT)",
      parseCount,
    )
    .option(
      '--workers <n>',
      'rewrite mode: N threads (the main one and N − 1 workers) each making whole parts (output identical whatever N; default 1)',
      parseCount,
    )
    .option(
      '--shard-index <i>',
      'this shard (default: HSA_SHARD_INDEX, JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN); a shard writes no manifest, hsa merge does',
      parseCount,
    )
    .action(async (o: AugmentFlags & ShardFlags & { check?: string | boolean; workers?: number }) => {
      setCode(await (await import('./augment.js')).augmentCommand(o, io));
    });

  program
    .command('merge')
    .description('write the manifest of a sharded run once every part of every shard is done (exit 1 naming what is missing, writing nothing)')
    .argument('<out>', 'the output folder the shards wrote')
    .option('--json', 'print a machine-readable summary on stdout')
    .option('-q, --quiet', 'no summary on stderr')
    .action(async (out: string, o: MergeOptions) => {
      setCode(await (await import('./merge.js')).mergeCommand(out, o, io));
    });

  program
    .command('emit')
    .description('write batch job files that run a config as M shards and then hsa merge: a Slurm array (sbatch) or a Kubernetes Indexed Job')
    .argument('<engine>', 'slurm or k8s')
    .option('-c, --config <file>', 'the hsa.yaml the jobs run (paths in it are relative to it)')
    .option('--shards <m>', 'number of shards (array tasks / completion indexes)', parseCount)
    .option('--image <image>', 'k8s: container image with hsa on its PATH (default hsa:latest)')
    .option('--claim <name>', 'k8s: ReadWriteMany PersistentVolumeClaim holding the config folder, mounted at the same path (default hsa-work)')
    .option('--parallelism <n>', 'k8s: pods at once (default: all shards)', parseCount)
    .option('--backoff-limit-per-index <n>', 'k8s: retries of one shard before its index fails (default 3)', parseCount)
    .option('--hsa <command>', 'how the job calls hsa (default "hsa")')
    .option('--name <name>', 'job name prefix (default hsa)')
    .option('--dir <folder>', "where to write the files (default: the config's folder)")
    .option('--force', 'overwrite files that exist')
    .action(async (engine: string, o: EmitOptions) => {
      setCode(await (await import('./emit.js')).emitCommand(engine, o, io));
    });

  const teacher = program.command('teacher').description('offline batch runs for the teacher re-run (OpenAI Batch API or vllm run-batch)');
  addAugmentOptions(teacher.command('export').description('write the teacher requests missing from the cache as OpenAI Batch JSONL (custom_id = cache key)'))
    .requiredOption('--batch-dir <dir>', 'folder for batch-00000.jsonl … (50,000 requests a file)')
    .action(async (o: AugmentFlags & { batchDir: string }) => {
      setCode(await (await import('./teacher.js')).teacherExportCommand(o, io));
    });
  teacher
    .command('import')
    .description('load Batch API result files into the teacher cache')
    .argument('<results...>', 'Batch output JSONL files')
    .option('-c, --config <file>', 'hsa.yaml whose `cache:` to fill')
    .option('--cache <dir>', 'teacher answer cache (default $HSA_CACHE_DIR, else ~/.cache/hsa/teacher)')
    .option('--json', 'print JSON on stdout')
    .action(async (results: string[], o: { config?: string; cache?: string; json?: boolean }) => {
      setCode(await (await import('./teacher.js')).teacherImportCommand({ ...o, results }, io));
    });

  addReviewCommands(program, io, setCode);

  const env = program.command('env').description('the harness runtime as an RL environment');
  env
    .command('serve')
    .description('serve episodes of RL rows over HTTP (Open Reward Standard; 127.0.0.1 by default)')
    .requiredOption('--rows <glob...>', 'RL parts (rl/part-*.jsonl[.gz]; quote globs)')
    .option('--host <host>', 'address to bind (default 127.0.0.1: this machine only)')
    .option('--port <n>', 'port (default 8808; 0 picks a free one and prints it)', parsePort)
    .option('--ttl <s>', 'seconds a session lives without a request (default 900)', parseCount)
    .option('--max-sessions <n>', 'open sessions at most (default 4096)', parseCount)
    .option('--idle-exit <s>', 'stop after this many seconds without a request', parseCount)
    .option('--split <name>', 'the ORS split holding the rows (default train)')
    .option('--reward-config <file>', 'reward weights and penalties (YAML/JSON, docs/reward.md)')
    .option('--tokenizer <name>', 'reasoning tokens: qwen3 (default) or estimate')
    .option('--json', 'print the server address as one JSON line on stdout')
    .option('-q, --quiet', 'no messages on stderr')
    .action(async (o: EnvServeOptions) => {
      setCode(await (await import('./env.js')).envServeCommand(o, io));
    });

  program
    .command('reward')
    .description("score finished rollouts offline with the environment's episode core (one JSON line per rollout)")
    .requiredOption('--rows <glob...>', 'RL parts the rollouts name rows of')
    .requiredOption('--rollouts <file>', 'JSONL: {"index"|"id"|"position"|"row", "messages"} per line')
    .option('--reward-config <file>', 'reward weights and penalties (YAML/JSON, docs/reward.md)')
    .option('--tokenizer <name>', 'reasoning tokens: qwen3 (default) or estimate')
    .option('--invalid-arguments <mode>', "tool-call arguments that are not JSON: error (a bad rollout, default) or tool_error (the policy's mistake)")
    .option('--judge-config <file>', 'score reply quality with the judge: section of this eval config (docs/eval.md)')
    .option('--json', 'end stdout with a {"summary": …} line')
    .option('-q, --quiet', 'no progress or summary on stderr')
    .action(async (o: RewardOptions) => {
      setCode(await (await import('./reward.js')).rewardCommand(o, io));
    });

  addEvalCommands(program, io, setCode);
  addMigrateCommands(program, io, setCode);

  const words = program.command('words').description('word packs: vocabulary for renames, distractors and rewording (docs/words.md)');
  words
    .command('suggest')
    .description('ask an OpenAI-compatible model for domain synonyms and distractor tools/skills of a harness; writes a pack for review (cached)')
    .requiredOption('--harness <path>', 'harness folder or single harness YAML file')
    .requiredOption('--model-url <url>', 'OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1')
    .requiredOption('--model <name>', 'model name')
    .option('-o, --out <file>', 'pack file to write (default: stdout)')
    .option('--key-env <name>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--cache <dir>', 'answer cache (default $HSA_CACHE_DIR/words, else ~/.cache/hsa/words)')
    .option('--require-cache', 'fail on a request missing from the cache')
    .option('--attempts <n>', 'requests at most: the first answer and corrections of invalid ones (default 3)', parseCount)
    .action(async (o: WordsSuggestOptions) => {
      setCode(await (await import('./words.js')).wordsSuggestCommand(o, io));
    });

  program
    .command('export')
    .description(
      "write an hsa output folder in a trainer's format: verl-sft, verl-rl, llamafactory, swift, trl (deterministic; nothing written on a bad input)",
    )
    .argument('<out>', 'the hsa output folder (with manifest.json)')
    .requiredOption('--to <format>', 'verl-sft | verl-rl | llamafactory | swift | trl')
    .requiredOption('--out <dir>', 'folder to write (must be empty, or --force)')
    .option('--stage <stage>', 'source stage: sft (default) or opd for verl-sft/swift; rl for verl-rl')
    .option('--max-tokens <n>', 'SFT/OPD records whose rendered chat template is longer go to rejects.jsonl', parsePositive)
    .option('--tokenizer <name|dir>', 'qwen3 (built in, default) or a folder with tokenizer.json + tokenizer_config.json')
    .option('--enable-thinking <bool>', 'verl-sft: write an enable_thinking column (true or false)')
    .option('--name <name>', 'dataset name (dataset_info.json entry; default hsa)')
    .option(
      '--tool-class <python.path>',
      "verl-rl: unused since verl-rl runs hsa's agent loop, which answers every call from hsa env serve (kept so old commands run)",
    )
    .option(
      '--merge-turns',
      'llamafactory, swift: join consecutive user turns with a blank line and write later system messages as user turns (recorded per row in hsa_joined), so such records are written instead of skipped',
    )
    .option('--force', 'replace what --out holds')
    .option('--json', 'print a machine-readable summary on stdout')
    .option('-q, --quiet', 'no summary on stderr')
    .action(async (out: string, o: ExportFlags) => {
      setCode(await (await import('./export.js')).exportCommand(out, o, io));
    });

  return program;
}

/** The options `hsa augment` and `hsa teacher export` share: one table, so a config key cannot lack its flag in either. */
function addAugmentOptions(cmd: Command): Command {
  return cmd
    .option('-c, --config <file>', 'hsa.yaml with every option (paths in it are relative to the file); flags override it')
    .option('--harness <path>', 'harness folder or single harness YAML file (omitted or "inline": each record\'s own tools and system message)')
    .addOption(systemPromptOption())
    .addOption(formatsOption())
    .option('-t, --trajectories <glob...>', 'trajectory JSONL files or globs')
    .option('--general <file>', 'general prompts (JSONL) mixed into OPD')
    .option('-o, --out <dir>', 'output folder')
    .option('--seed <seed>', 'run seed')
    .option('-k, --variants <k>', 'variants per source record', parseCount)
    .option('--keep-source', 'also write each source record unchanged (id SOURCE~src)')
    .option('--transforms <ids...>', 'only these transforms (options from the config, else defaults)')
    .option('--stages <list>', 'stages to write: sft,opd,rl')
    .option('--part-size <n>', 'input records per part', parseCount)
    .option('--gzip', 'write .jsonl.gz parts (deterministic gzip)')
    .option('--no-gzip', 'write plain .jsonl parts')
    .option('--on-error <mode>', 'bad input record: fail (default) or skip to rejects')
    .option('--concurrency <n>', 'parts or requests in flight (output never depends on it)', parseCount)
    .option('--state-pool <n>', 'share N sampled harness states across records (default 64; 0: one state per record and variant)', parseCount)
    .option('--teacher <mode>', 'rewrite (the rewritten reference is the result), replay (offline teacher through the agent runtime) or openai')
    .option('--teacher-url <url>', 'OpenAI-compatible base URL (overrides teacher.base_url)')
    .option('--teacher-model <model>', 'teacher model (overrides teacher.model)')
    .option('--teacher-key-env <name>', 'environment variable holding the API key (default OPENAI_API_KEY; the key is never written anywhere)')
    .option('--cache <dir>', 'teacher answer cache (default $HSA_CACHE_DIR, else ~/.cache/hsa/teacher)')
    .option('--require-cache', 'fail on any teacher request missing from the cache (for CI)')
    .option('--fallback <mode>', 'when a teacher run is rejected: none (to rejects) or rewrite (keep the rewritten reference, marked)')
    .option('--consistency <mode>', 'teacher calls vs the reference: exact (default), superset or any')
    .option('--allow-command-hooks', 'run command hooks of the harness (never run otherwise)')
    .option('--arguments <form>', 'tool-call arguments in SFT/OPD: object (default) or string')
    .option('--tools-format <form>', 'tools in SFT/OPD: list (default) or json-string')
    .option('--opd-prompts <n|all>', 'OPD prompts per output record: N of its assistant turns, seeded and spread over its variants (default 1), or all')
    .option('--skip-empty-sft', 'SFT records without an assistant turn go to rejects (reason sft_no_assistant) instead of sft/')
    .option(
      '--tokenizer <name|dir>',
      'count SFT/OPD tokens with qwen3 (built in) or a folder with tokenizer.json + tokenizer_config.json; stats go to the manifest',
    )
    .option(
      '--max-tokens <n>',
      'SFT/OPD records longer than this (rendered chat template, --tokenizer, default qwen3) go to rejects as too_long',
      parsePositive,
    )
    .option('--plugin <file...>', 'load user transforms from these modules (.js/.mjs)')
    .option(
      '--words <pack-or-file...>',
      "word packs to use instead of the config's words.packs (built-in: default, live-commerce, travel, software; or YAML files)",
    )
    .option('--split <split>', 'train or eval: new names, synonyms and distractors from disjoint pools (docs/eval.md)')
    .option('--json', 'print a machine-readable summary on stdout')
    .option('-q, --quiet', 'no progress or summary on stderr');
}

function systemPromptOption(): Option {
  return new Option(
    '--system-prompt <mode>',
    'logged system message: match (the rendered harness), locate (harness sections inside it, the rest kept verbatim) or replace (by the rendered harness)',
  ).choices(['match', 'locate', 'replace']);
}

function formatsOption(): Option {
  return new Option('--formats <mode>', 'JSON Schema format keyword: annotate (default, 2019-09+ meaning) or assert').choices(['annotate', 'assert']);
}

function parsePositive(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

function parseCount(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError('must be a port number 0..65535');
  return n;
}

/** Run the CLI on `argv` (without node and script). Never throws; returns the exit code. */
export async function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  useBuiltinTransforms(BUILTIN_TRANSFORMS);
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
