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
