/** Canonical JSON spelled out another way (entries sorted with a comparator, JSON.stringify for every scalar): the reference bytes. */
export function referenceCanonical(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object') {
    const toJSON = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof toJSON === 'function') return referenceCanonical(toJSON.call(value));
    if (Array.isArray(value)) return `[${value.map((x) => referenceCanonical(x) ?? 'null').join(',')}]`;
    const members = Object.entries(value)
      .map(([k, x]) => [k, referenceCanonical(x)] as const)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${members.map(([k, x]) => `${JSON.stringify(k)}:${x}`).join(',')}}`;
  }
  return typeof value === 'bigint' ? undefined : JSON.stringify(value);
}
