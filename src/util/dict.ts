/**
 * An empty object for use as a dictionary keyed by names (identifier maps, per-tool edits): no
 * prototype, so V8 keeps it in dictionary mode from the start. A plain `{}` that gets keys no other
 * object has (every record's own tool names) makes a new hidden class for each key it gets, about
 * ten times the cost of the insert itself. JSON, Object.keys/entries and for…in see the same keys
 * in the same order as on a plain object; `name in d` and `d[name]` see no inherited members.
 */
export function dict<V = string>(): Record<string, V> {
  return Object.create(null) as Record<string, V>;
}

/**
 * An empty plain object (Object.prototype kept) already in V8's dictionary mode, for data objects
 * that get keys of a record's own or newly drawn names (a renamed or reordered schema's
 * `properties`): the same hidden-class cost as above is avoided, and consumers (JSON Schema
 * compilers, JSON) see an ordinary object with its keys in insertion order. Deleting a property
 * that is not the last one added is what moves an object to dictionary mode.
 */
export function keyedObject<V = unknown>(): Record<string, V> {
  const o: Record<string, unknown> = { a: 0, b: 0 };
  delete o.a;
  delete o.b;
  return o as Record<string, V>;
}
