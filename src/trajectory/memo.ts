import { attach, attached } from '../util/attach.js';

/**
 * A value derived from a pair of objects (a plan and a harness state), kept on the first one (see
 * attach.ts) in a short list by the second: a plan meets one or two states (its source, its
 * target). With a record's own tools every output has its own plans and states, and WeakMaps per
 * plan cost more to fill and to collect than the values they kept. The values are pure functions
 * of the pair: one not kept (past the list's length) is only worked out again.
 */
export function pairMemo<V>(key: symbol, owner: object, other: object, compute: () => V): V {
  const list = attached<unknown[]>(owner, key);
  if (list !== undefined) for (let i = 0; i < list.length; i += 2) if (list[i] === other) return list[i + 1] as V;
  const value = compute();
  const now = attached<unknown[]>(owner, key);
  if (now === undefined) attach(owner, key, [other, value]);
  else if (now.length < 2 * PAIRS_KEPT) now.push(other, value);
  return value;
}

const PAIRS_KEPT = 8;

/** A value derived from one object, kept on it (see attach.ts). */
export function ownMemo<V>(key: symbol, owner: object, compute: () => V): V {
  const hit = attached<V>(owner, key);
  if (hit !== undefined) return hit;
  const value = compute();
  attach(owner, key, value);
  return value;
}
