import { z } from 'zod';
import type { Tool } from '../../src/harness/types.js';
import { defineTransform } from '../../src/transform/define.js';
import { splitWords } from '../../src/words/identifier-words.js';
import { schemaPropertyNames, shallowState } from '../../src/transform/state.js';

/** Add plausible tools that the trajectory never calls, at random positions. */
export default defineTransform({
  id: 'tools.distractors',
  family: 'tools',
  class: 'exact',
  version: 4,
  description: 'Add plausible distractor tools (from the word lists) that are listed but never called.',
  options: z.strictObject({
    p: z.number().min(0).max(1).default(0.5).describe('probability that a variant adds distractor tools'),
    max: z.number().int().min(1).max(20).default(3).describe('most distractors added to one variant'),
  }),
  apply(state, ctx) {
    // A distractor's parameter may share a name with a real parameter (that is realistic), but not
    // with any other identifier in use.
    const params = new Set(state.tools.flatMap((x) => schemaPropertyNames(x.parameters)));
    const names = new Set(state.tools.map((x) => x.name));
    const topics = new Set(state.tools.filter((x) => !x.distractor).flatMap((x) => topicWords(x.name)));
    const free = ctx.words.distractorTools.filter(
      // In a split run a parameter the harness does not have is a new name: it must be the split's.
      (t) =>
        !ctx.isTaken(t.name) &&
        !names.has(t.name) &&
        !topicWords(t.name).some((w) => topics.has(w)) &&
        schemaPropertyNames(t.parameters).every((p) => params.has(p) || (!ctx.isTaken(p) && (ctx.words.accept?.(p) ?? true))),
    );
    if (free.length === 0) return null;
    const picked = ctx.rng.sample(free, 1 + ctx.rng.int(Math.min(ctx.options.max, free.length)));
    // Tools are shared with the state before (never edited in place); the list is new.
    const out = shallowState(state);
    out.tools = [...state.tools];
    // The pack's schema object is shared, not copied: schemas are replaced, never changed in place.
    for (const d of picked) {
      const tool: Tool = { name: d.name, description: d.description, parameters: d.parameters, sourceName: d.name, sourceFormat: 'openai', distractor: true };
      out.tools.splice(ctx.rng.int(out.tools.length + 1), 0, tool);
    }
    return { state: out, params: { added: picked.map((d) => d.name) } };
  },
});

/**
 * Words of a tool name that say what it is about (`weather` of `get_destination_weather`,
 * `translate` and `text` of `translate_text`), singular: the name without the verbs and fillers
 * every other tool name has too. A distractor that shares one with a real tool may do what the real
 * tool does (`get_destination_weather` beside `Get Weather`, `get_current_time` beside `time_now`):
 * listed and never called, it would teach that a tool fit for the task is not to be used.
 */
function topicWords(name: string): readonly string[] {
  let words = topicCache.get(name);
  if (words === undefined) {
    words = splitWords(name)
      .map((w) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w))
      .filter((w) => w.length > 2 && !PLAIN_WORDS.has(w));
    // Names repeat (a pack's distractors in every state); a bounded cache, cleared when full.
    if (topicCache.size >= 4096) topicCache.clear();
    topicCache.set(name, words);
  }
  return words;
}
const topicCache = new Map<string, readonly string[]>();

const PLAIN_WORDS = new Set([
  'get',
  'list',
  'set',
  'search',
  'find',
  'fetch',
  'lookup',
  'look',
  'create',
  'add',
  'update',
  'delete',
  'remove',
  'run',
  'check',
  'show',
  'view',
  'read',
  'make',
  'new',
  'all',
  'current',
  'public',
  'info',
  'data',
  'detail',
  'status',
  'the',
  'for',
  'and',
  'api',
  'tool',
]);
