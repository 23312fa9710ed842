import { canonicalJson } from '../../util/canonical-json.js';
import { isSkip, messagesColumn, parquetMessages, stringColumn, toolsList } from '../messages.js';
import type { SchemaElement } from '../sinks.js';
import { defineFormat, PerPartFile, type ExportContext } from '../types.js';

/**
 * Loads the parquet through verl's `MultiTurnSFTDataset` and turns the `tools` JSON text back into
 * the list `apply_chat_template` expects (verl hands the column to the tokenizer unchanged, and
 * transformers accepts only dicts there).
 */
const DATASET_SHIM = `# Written by \`hsa export --to verl-sft\`. Load with:
#   data.custom_cls.path=<this file> data.custom_cls.name=HsaMultiTurnSFTDataset
# The parquet keeps \`tools\` as JSON text (a struct column would null-pad differently shaped
# tool schemas); this subclass decodes it before verl renders the chat template.
import json

from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset


class HsaMultiTurnSFTDataset(MultiTurnSFTDataset):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.tools is not None:
            self.tools = [json.loads(t) if isinstance(t, str) else t for t in self.tools]
`;

/** verl multi-turn SFT: one parquet file per source part. */
export default defineFormat({
  id: 'verl-sft',
  description: "parquet for verl's MultiTurnSFTDataset: messages (arguments as JSON text), tools (JSON text), enable_thinking (with --enable-thinking)",
  stages: ['sft', 'opd'],
  open(ctx: ExportContext) {
    const schema: SchemaElement[] = [
      { name: 'root', num_children: ctx.enableThinking === undefined ? 4 : 5 },
      stringColumn('id'),
      ...messagesColumn('messages'),
      stringColumn('tools'),
      ...(ctx.enableThinking === undefined ? [] : [{ name: 'enable_thinking', type: 'BOOLEAN', repetition_type: 'OPTIONAL' } as SchemaElement]),
      stringColumn('meta'),
    ];
    const files = new PerPartFile(ctx, (file) => ctx.parquet(file, schema), (part) => `${ctx.stage}/${part}.parquet`);
    return {
      add(record) {
        const messages = parquetMessages(record.messages);
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
        await ctx.whole('verl_sft_dataset.py', DATASET_SHIM);
        return {};
      },
    };
  },
});
