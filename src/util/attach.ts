/**
 * Data derived from an object, kept on the object itself under a symbol key that is not
 * enumerable: JSON, Object.keys, for-in and spreads do not see it, and it lives exactly as long as
 * the object. Used where a WeakMap or a map of recent entries would cost more: their entries
 * outlive their keys until a full collection (or make every young-generation collection slower),
 * and hsa makes such objects once per output record.
 */
export function attach<T>(target: object, key: symbol, value: T): void {
  if (Object.prototype.hasOwnProperty.call(target, key)) (target as Record<symbol, unknown>)[key] = value;
  else if (Object.isExtensible(target)) Object.defineProperty(target, key, { value, writable: true });
}

/** What `attach` kept on `target` under `key`, if anything. */
export function attached<T>(target: object, key: symbol): T | undefined {
  return (target as Record<symbol, T | undefined>)[key];
}
