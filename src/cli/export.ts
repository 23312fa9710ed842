import { UsageError } from '../errors.js';
import { planExport, runExport } from '../export/run.js';
import { loadTokenCounter } from '../tokenize/tokenizer.js';
import type { Io } from './io.js';

/** Flags of `hsa export`. */
export interface ExportFlags {
  to: string;
  out: string;
  stage?: string;
  maxTokens?: number;
  tokenizer?: string;
  enableThinking?: string;
  name?: string;
  toolClass?: string;
  mergeTurns?: boolean;
  force?: boolean;
  json?: boolean;
  quiet?: boolean;
}

/** `hsa export OUT --to FORMAT --out DIR`: an hsa output folder in a trainer's own format. */
export async function exportCommand(source: string, flags: ExportFlags, io: Io): Promise<number> {
  let enableThinking: boolean | undefined;
  if (flags.enableThinking !== undefined) {
    if (flags.enableThinking !== 'true' && flags.enableThinking !== 'false')
      throw new UsageError(`--enable-thinking: must be true or false, not "${flags.enableThinking}"`);
    enableThinking = flags.enableThinking === 'true';
  }
  if (flags.name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(flags.name))
    throw new UsageError(`--name: "${flags.name}" must be letters, digits, _ . - (it names the dataset)`);
  if (flags.mergeTurns && flags.to !== 'llamafactory' && flags.to !== 'swift')
    throw new UsageError(`--merge-turns: only llamafactory and swift need it (they drop or glue such turns); ${flags.to} keeps every turn as it is`);
  const base = { source, to: flags.to, out: flags.out, ...(flags.stage ? { stage: flags.stage } : {}), ...(flags.force ? { force: true } : {}) };
  // Refuse a bad format, stage, source or out folder before loading a tokenizer (~1 s).
  const { format } = await planExport(base);
  const counter =
    flags.tokenizer !== undefined || flags.maxTokens !== undefined || format.needsTokenizer ? await loadTokenCounter(flags.tokenizer ?? 'qwen3') : undefined;
  const summary = await runExport({
    ...base,
    ...(flags.maxTokens !== undefined ? { maxTokens: flags.maxTokens } : {}),
    ...(counter ? { counter } : {}),
    ...(enableThinking !== undefined ? { enableThinking } : {}),
    ...(flags.name ? { name: flags.name } : {}),
    ...(flags.toolClass ? { toolClass: flags.toolClass } : {}),
    ...(flags.mergeTurns ? { mergeTurns: true } : {}),
    warn: (line) => {
      if (!flags.quiet && !flags.json) io.err(`warning: ${line}\n`);
    },
  });
  if (flags.json) {
    io.out(`${JSON.stringify({ ok: true, ...summary }, null, 2)}\n`);
  } else if (!flags.quiet) {
    const skips = Object.entries(summary.skips);
    io.err(
      `exported ${summary.written} of ${summary.read} ${summary.stage} records as ${summary.format} to ${summary.out}` +
        (summary.skipped || summary.too_long ? ` (${summary.skipped} skipped, ${summary.too_long} over the token budget; see rejects.jsonl)` : '') +
        '\n' +
        (skips.length ? `  skips: ${skips.map(([k, n]) => `${k} ×${n}`).join(', ')}\n` : '') +
        (summary.tokens ? `  tokens: min ${summary.tokens.min}, p50 ${summary.tokens.p50}, p95 ${summary.tokens.p95}, max ${summary.tokens.max}\n` : '') +
        `  ${summary.manifest}\n`,
    );
  }
  return 0;
}
