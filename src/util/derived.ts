import { attach, attached } from './attach.js';

/**
 * Data derived from objects that are never modified (plans, harness states, schemas), without a
 * WeakMap per kind: with a record's own tools every output has its own plans, states and schemas,
 * and WeakMap entries cost more to fill and to collect than the values they keep. The values are
 * pure functions of their objects: one not kept is only worked out again.
 */

const HOLDER = Symbol('hsa.derived');

/** The object's holder of derived values (one hidden property, made on first use; see attach.ts). */
function holderOf(owner: object): Record<symbol, unknown> {
  let h = attached<Record<symbol, unknown>>(owner, HOLDER);
  if (h === undefined) {
    h = Object.create(null) as Record<symbol, unknown>;
    attach(owner, HOLDER, h);
  }
  return h;
}

/** A value derived from one object (a plan, a state), kept on it under `key`. */
export function ownMemo<V>(key: symbol, owner: object, compute: () => V): V {
  const h = holderOf(owner);
  const hit = h[key];
  if (hit !== undefined) return hit as V;
  const value = compute();
  h[key] = value;
  return value;
}

/**
 * A value derived from a pair (a plan and a harness state), kept on the first in a short list by
 * the second: a plan meets one or two states (its source, its target).
 */
export function pairMemo<V>(key: symbol, owner: object, other: object, compute: () => V): V {
  const h = holderOf(owner);
  const list = h[key] as unknown[] | undefined;
  if (list !== undefined) for (let i = 0; i < list.length; i += 2) if (list[i] === other) return list[i + 1] as V;
  const value = compute();
  const now = h[key] as unknown[] | undefined;
  if (now === undefined) h[key] = [other, value];
  else if (now.length < 2 * PAIRS_KEPT) now.push(other, value);
  return value;
}

const PAIRS_KEPT = 8;

/**
 * Values derived from schema objects, by identity, in a map emptied whenever it holds SCHEMAS_KEPT
 * schemas: a record's variants share most schema objects with their source, and a pooled state's
 * are met again and again; a schema is not worth a hidden property of its own (its shape is new).
 */
const schemaValues = new Map<object, Record<symbol, unknown>>();
const SCHEMAS_KEPT = 8_192;

export function schemaMemo<V>(key: symbol, schema: object, compute: () => V): V {
  let h = schemaValues.get(schema);
  if (h === undefined) {
    if (schemaValues.size >= SCHEMAS_KEPT) schemaValues.clear();
    schemaValues.set(schema, (h = Object.create(null) as Record<symbol, unknown>));
  }
  const hit = h[key];
  if (hit !== undefined) return hit as V;
  const value = compute();
  h[key] = value;
  return value;
}
