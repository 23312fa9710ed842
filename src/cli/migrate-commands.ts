import { Option, type Command } from 'commander';
import type { SystemPromptMode } from '../trajectory/check.js';
import type { Io } from './io.js';
import type { MigrateApplyOptions, MigratePlanOptions } from './migrate.js';

/** `migrate plan | apply | diff`: carry trajectories from one harness version to the next (docs/migrate.md). */
export function addMigrateCommands(program: Command, io: Io, setCode: (code: number) => void): void {
  const migrate = program
    .command('migrate')
    .description('carry trajectories recorded under one harness version to the next: infer the plan, apply it with proof, review the change (docs/migrate.md)');
  migrate
    .command('plan')
    .description('infer the mapping between two harness versions (tools, parameters, values, skills, hooks, prompt sections) as editable YAML')
    .requiredOption('--from <harness>', 'harness A: the version the logs were recorded under')
    .requiredOption('--to <harness>', 'harness B: the version to migrate to')
    .option('-t, --trajectories <glob...>', 'logs recorded under A: the plan counts the records each change touches')
    .option('-o, --out <plan.yaml>', 'write the plan here (default: stdout)')
    .option(
      '--model-url <url>',
      'an OpenAI-compatible endpoint asked to propose matches for what inference left without a counterpart (cached; written as proposals, never applied)',
    )
    .option('--model <name>', 'the model name sent to --model-url')
    .option('--cache <dir>', 'cache of model answers (default .hsa/migrate-cache)')
    .action(async (o: MigratePlanOptions) => {
      setCode(await (await import('./migrate.js')).migratePlanCommand(o, io));
    });
  migrate
    .command('apply')
    .description('rewrite each record into harness B along the plan and prove it; what cannot be carried goes to rejects with its reason and plan entry')
    .requiredOption('--plan <plan.yaml>', 'the plan (from `hsa migrate plan`, edited or not)')
    .option('--to <harness>', "harness B (default: the plan's to.path)")
    .option('--from <harness>', "harness A (default: the plan's from.path)")
    .requiredOption('-t, --trajectories <glob...>', 'logs recorded under A')
    .requiredOption('-o, --out <file.jsonl>', 'migrated records (an ordinary trajectory file)')
    .option('--rejects <file.jsonl>', 'records not carried, with reasons (default: OUT with .rejects.jsonl)')
    .addOption(
      new Option(
        '--system-prompt <mode>',
        'logged system message read against A: match (default), locate (sections inside it, the text before and after kept) or replace',
      ).choices(['match', 'locate', 'replace']),
    )
    .addOption(
      new Option(
        '--teacher <mode>',
        're-run the records a removed tool, a missing value or a failed check stops under B with a teacher, through the episode runtime (written when every check passes)',
      ).choices(['openai']),
    )
    .option('--teacher-url <url>', 'the OpenAI-compatible base URL of the teacher')
    .option('--teacher-model <name>', 'the model name sent to the teacher')
    .option('--teacher-key-env <VAR>', 'the environment variable holding the API key (default OPENAI_API_KEY)')
    .addOption(
      new Option('--consistency <mode>', "the teacher's calls against the source's, mapped back through the plan: exact (default), superset or any").choices([
        'exact',
        'superset',
        'any',
      ]),
    )
    .option('--cache <dir>', 'teacher answer cache (default $HSA_CACHE_DIR, else ~/.cache/hsa/teacher)')
    .option('--json', 'print the summary as JSON')
    .action(async (o: MigrateApplyOptions & { systemPrompt?: SystemPromptMode }) => {
      setCode(await (await import('./migrate.js')).migrateApplyCommand(o, io));
    });
  migrate
    .command('diff')
    .description('the change between two harness versions as a reviewer reads it: renames, schema changes, prompt sections added, removed or edited')
    .argument('<from>', 'harness A')
    .argument('<to>', 'harness B')
    .option('--json', 'print JSON on stdout')
    .option('--html <file>', 'also write a self-contained HTML report')
    .action(async (from: string, to: string, o: { json?: boolean; html?: string }) => {
      setCode(await (await import('./migrate.js')).migrateDiffCommand({ from, to, ...o }, io));
    });
}
