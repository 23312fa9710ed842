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
 * Values derived from schema objects, by identity: a schema is not worth a hidden property of its
 * own (its shape is new). Kept in two generations. A schema first met goes to the nursery, a map
 * set aside whole when it holds NURSERY_KEPT schemas; the one set aside before is then dropped into
 * a WeakMap, which keeps no schema alive. A schema met again after its nursery was set aside or
 * dropped — one that lives beyond the record that made it: the harness's own schemas, a pooled
 * state's — goes to the long-lived map (emptied whenever it holds SCHEMAS_KEPT), with its values.
 * With a record's own tools every output has its own states and schemas: one long-lived map kept
 * thousands of schemas made for one record each, with their canonical text and validators, alive
 * across young-generation collections, so they were promoted and collected as old — about a fifth
 * of such a run's GC time, and much of its peak RSS. Values are pure functions of their schema: one
 * not kept is only worked out again.
 */
let nursery = new Map<object, Record<symbol, unknown>>();
let setAside = new Map<object, Record<symbol, unknown>>();
const dropped = new WeakMap<object, Record<symbol, unknown>>();
const longLived = new Map<object, Record<symbol, unknown>>();
const NURSERY_KEPT = 256;
const SCHEMAS_KEPT = 8_192;

function schemaHolder(schema: object): Record<symbol, unknown> {
  let h = longLived.get(schema) ?? nursery.get(schema);
  if (h !== undefined) return h;
  h = setAside.get(schema);
  if (h !== undefined) setAside.delete(schema);
  else h = dropped.get(schema);
  if (h !== undefined) {
    if (longLived.size >= SCHEMAS_KEPT) longLived.clear();
    longLived.set(schema, h);
    return h;
  }
  if (nursery.size >= NURSERY_KEPT) {
    for (const [old, values] of setAside) dropped.set(old, values);
    setAside = nursery;
    nursery = new Map();
  }
  nursery.set(schema, (h = Object.create(null) as Record<symbol, unknown>));
  return h;
}

export function schemaMemo<V>(key: symbol, schema: object, compute: () => V): V {
  const h = schemaHolder(schema);
  const hit = h[key];
  if (hit !== undefined) return hit as V;
  const value = compute();
  h[key] = value;
  return value;
}
