import { canonicalJson } from '../../util/canonical-json.js';
import { readFile } from 'node:fs/promises';
import { argumentsText, isSkip, messagesColumn, parquetMessages, stringColumn, toolsList, type SourceMessage } from '../messages.js';
import { pythonJsonText } from '../../util/python-json.js';
import type { SchemaElement } from '../sinks.js';
import { defineFormat, PerPartFile, type ExportContext } from '../types.js';

/**
 * The dataset class verl loads the parquet with (`data.custom_cls`), shipped in
 * integrations/verl/sft_dataset.py and copied beside the parquet files: it decodes the `tools`
 * column, turns the numpy arrays pandas hands verl back into lists, and gives verl each message's
 * tokens as they stand in the whole conversation's rendering, so verl's sanity check holds.
 */
const DATASET_FILE = new URL('../../../../integrations/verl/sft_dataset.py', import.meta.url);

/**
 * Tool-call arguments as JSON text in the form transformers' `tojson` writes the parsed object
 * (Python's `json.dumps`: `{"a": 1}`), so the template — which writes a string argument as it is —
 * renders what it renders for the object; text that is not JSON stays as it is.
 */
function trainerArguments(args: unknown): string {
  const text = argumentsText(args);
  return pythonJsonText(text) ?? text;
}

/** Messages with the arguments verl's template will write (what `--max-tokens` counts). */
function trainerMessages(messages: unknown): unknown {
  if (!Array.isArray(messages)) return messages;
  return messages.map((m: SourceMessage) =>
    m && Array.isArray(m.tool_calls)
      ? {
          ...m,
          tool_calls: m.tool_calls.map((c) => (c && c.function ? { ...c, function: { ...c.function, arguments: trainerArguments(c.function.arguments) } } : c)),
        }
      : m,
  );
}

/** verl multi-turn SFT: one parquet file per source part. */
export default defineFormat({
  id: 'verl-sft',
  description:
    "parquet for verl's multi-turn SFT (with the shipped HsaMultiTurnSFTDataset): messages (arguments as the JSON text transformers renders), tools (JSON text), enable_thinking (with --enable-thinking)",
  stages: ['sft', 'opd'],
  countedMessages: (record) => trainerMessages(record.messages) as unknown[],
  open(ctx: ExportContext) {
    const schema: SchemaElement[] = [
      { name: 'root', num_children: ctx.enableThinking === undefined ? 4 : 5 },
      stringColumn('id'),
      ...messagesColumn('messages'),
      stringColumn('tools'),
      ...(ctx.enableThinking === undefined ? [] : [{ name: 'enable_thinking', type: 'BOOLEAN', repetition_type: 'OPTIONAL' } as SchemaElement]),
      stringColumn('meta'),
    ];
    const files = new PerPartFile(
      ctx,
      (file) => ctx.parquet(file, schema),
      (part) => `${ctx.stage}/${part}.parquet`,
    );
    return {
      add(record) {
        const messages = parquetMessages(trainerMessages(record.messages));
        if (isSkip(messages)) return messages;
        const tools = toolsList(record.tools);
        if (isSkip(tools)) return tools;
        files.get().write({
          id: String(record.id),
          messages,
          tools: JSON.stringify(tools),
          ...(ctx.enableThinking === undefined ? {} : { enable_thinking: ctx.enableThinking }),
          meta: record.meta === undefined ? null : canonicalJson(record.meta),
        });
        return undefined;
      },
      endPart: (index) => files.end(index),
      async finish() {
        await ctx.whole('verl_sft_dataset.py', await readFile(DATASET_FILE, 'utf8'));
        return {};
      },
    };
  },
});
