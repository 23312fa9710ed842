import { attach, attached } from '../util/attach.js';
import type { Harness } from './types.js';

/**
 * Where a harness's user-turn texts (`prompt.user_sections`) stand in a user message: `texts[i]`
 * (the text as the message holds it, in the state the message was written under) between
 * `outer[i]` and `outer[i + 1]`, the user's own words, kept verbatim.
 */
export interface UserTextLayout {
  ids: readonly string[];
  texts: readonly string[];
  outer: readonly string[];
}

const USER_LAYOUT = Symbol('hsa.user-text-layout');

/** Keep the layout of harness text found in a user message on the message. */
export function setUserTextLayout(message: object, layout: UserTextLayout): void {
  attach(message, USER_LAYOUT, layout);
}

/**
 * The user-text layout kept on a message, when it still describes the message's content (a
 * message edited since holds its text as data again).
 */
export function userTextLayout(message: object | undefined, content: string): UserTextLayout | undefined {
  const layout = message === undefined ? undefined : attached<UserTextLayout>(message, USER_LAYOUT);
  return layout !== undefined && joinUserText(layout.outer, layout.texts) === content ? layout : undefined;
}

/** A user message's content from its own words and the harness texts between them. */
export function joinUserText(outer: readonly string[], texts: readonly string[]): string {
  let out = outer[0] ?? '';
  texts.forEach((t, i) => (out += t + (outer[i + 1] ?? '')));
  return out;
}

/**
 * The harness's user-turn texts found, in order, in a message's content: the layout, or the id
 * of the first one not found after the ones before it.
 */
export function locateUserTexts(h: Harness, content: string): UserTextLayout | { missing: string; after?: string } {
  const texts = h.userTexts ?? [];
  const outer: string[] = [];
  let pos = 0;
  for (let i = 0; i < texts.length; i++) {
    const at = content.indexOf(texts[i]!.text, pos);
    if (at < 0) return { missing: texts[i]!.id, ...(i > 0 ? { after: texts[i - 1]!.id } : {}) };
    outer.push(content.slice(pos, at));
    pos = at + texts[i]!.text.length;
  }
  outer.push(content.slice(pos));
  return { ids: texts.map((t) => t.id), texts: texts.map((t) => t.text), outer };
}
