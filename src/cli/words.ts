import { UsageError } from '../errors.js';
import { formatProblem, sortProblems } from '../problems.js';
import { suggestWords, type WordsSuggestOptions } from '../words/suggest.js';
import type { Io } from './io.js';

/** `hsa words suggest`: a word pack for a harness from an OpenAI-compatible model (src/words/suggest.ts), on stdout or in `--out`. */
export async function wordsSuggestCommand(opts: WordsSuggestOptions, io: Io): Promise<number> {
  if (!opts.modelUrl || !opts.model) throw new UsageError('words suggest: --model-url and --model are required');
  const r = await suggestWords(opts);
  if ('problems' in r) {
    for (const p of sortProblems(r.problems)) io.err(`${formatProblem(p)}\n`);
    io.err(`cannot suggest words: ${opts.harness} has errors (run hsa validate)\n`);
    return 1;
  }
  if (!opts.out) io.out(r.text);
  const p = r.pack;
  io.err(
    `${opts.out ?? 'stdout'}: ${Object.keys(p.synonyms ?? {}).length} synonym entries, ${p.distractor_tools?.length ?? 0} distractor tools, ${p.distractor_skills?.length ?? 0} distractor skills (requests: ${r.requests.sent} sent, ${r.requests.cached} from the cache); review it, then select it with words: {packs: [default, ${opts.out ?? 'FILE'}]}\n`,
  );
  return 0;
}
