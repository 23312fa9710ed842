/**
 * The scalars of the hand YAML reader (yaml-quick.ts): quoted scalars on one line and the YAML 1.2
 * core-schema value of a plain scalar, as the `yaml` package reads them; `fail` gives up.
 */
export const GIVE_UP = new Error('yaml-quick: not sure');
/** Gives up: the hand reader is not sure (parseLocated asks the yaml package). */
export function fail(): never {
  throw GIVE_UP;
}

// The escapes of a double-quoted scalar (after the backslash) and what they stand for.
const ESCAPE_FROM = '0abefnrtvN_LP "/\\';
const ESCAPE_TO = '\0\x07\b\x1b\f\n\r\t\v\u0085\u00a0\u2028\u2029 "/\\';
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };
const DQ_STOP = /["\\\n]/g;

/** A quoted scalar that starts at p and ends on the same line: its text and the column after it. */
export function quoted(s: string, p: number): [string, number] {
  if (s[p] === "'") {
    let out = '';
    for (let j = p + 1; ;) {
      const q = s.indexOf("'", j);
      if (q < 0) fail();
      out += s.slice(j, q);
      if (out.includes('\n')) fail();
      if (s[q + 1] !== "'") return [out, q + 1];
      out += "'";
      j = q + 2;
    }
  }
  let out = '';
  for (let j = p + 1; ;) {
    DQ_STOP.lastIndex = j;
    const q = DQ_STOP.exec(s)?.index ?? fail();
    out += s.slice(j, q);
    j = q;
    if (s[j] === '"') return [out, j + 1];
    if (s[j] === '\n') fail();
    const e = s[j + 1] as string;
    const hex = HEX_LENGTH[e];
    if (hex !== undefined) {
      const digits = s.slice(j + 2, j + 2 + hex);
      if (digits.length !== hex || !/^[0-9a-fA-F]+$/.test(digits)) fail();
      const code = parseInt(digits, 16);
      if (code > 0x10ffff) fail();
      out += String.fromCodePoint(code);
      j += 2 + hex;
    } else {
      const k = e === undefined ? -1 : ESCAPE_FROM.indexOf(e);
      out += k < 0 ? fail() : ESCAPE_TO[k];
      j += 2;
    }
  }
}

/** A plain scalar's value in the YAML 1.2 core schema, as the `yaml` package resolves it by default. */
export function plainValue(s: string): unknown {
  if (/^(?:~|[Nn]ull|NULL)?$/.test(s)) return null;
  if (/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/.test(s)) return s[0] === 't' || s[0] === 'T';
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.slice(2), 8);
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.slice(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) {
    return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  }
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(s) || /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(s)) return parseFloat(s);
  return s;
}
