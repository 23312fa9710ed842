/** A text quoted in a failure message, cut to 120 characters. */
export function clip(s: string): string {
  return s.length > 120 ? `${s.slice(0, 120)}…` : s;
}
