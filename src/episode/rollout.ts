import { Episode } from './episode.js';
import { DEFAULT_EPISODE_OPTIONS, type EpisodeOptions } from './options.js';
import { readPolicyMessage } from './message.js';
import type { EpisodeRow } from './row.js';

/**
 * Re-run a finished rollout through the episode core: the policy's assistant messages, in order,
 * are applied to a fresh episode of the row (tool results, feedback and user turns are the
 * environment's, recomputed, so the messages of other roles in the rollout are not read). The
 * result is the episode the environment server would have run for the same messages.
 */
export function replayRollout(
  row: EpisodeRow,
  messages: unknown,
  field: string,
  badJson: 'error' | 'tool_error' = 'error',
  options: EpisodeOptions = DEFAULT_EPISODE_OPTIONS,
): { episode: Episode; ignored: number } {
  if (!Array.isArray(messages)) throw new TypeError(`${field}: expected an array of messages`);
  const episode = new Episode(row, options);
  let ignored = 0;
  messages.forEach((m, i) => {
    if (m === null || typeof m !== 'object' || (m as { role?: unknown }).role !== 'assistant') return;
    if (episode.done) {
      ignored++;
      return;
    }
    episode.step(readPolicyMessage(m, `${field}[${i}]`, badJson));
  });
  return { episode, ignored };
}
