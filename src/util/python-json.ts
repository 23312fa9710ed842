/**
 * JSON text as Python's `json.dumps(json.loads(text), ensure_ascii=False)` writes it — the form
 * transformers' `tojson` filter gives a chat template (`, ` and `: ` separators, non-ASCII as it
 * is, floats in Python's `repr`: `1.0`, `1e-07`, `1e+16`). A template given arguments as this text
 * (`{%- if tool_call.arguments is string %}`) writes the bytes it writes for the parsed object.
 *
 * Works on the text, so number literals keep what Python reads from them (`1.0` stays a float,
 * `10` an int, whatever JavaScript's parse would make of them). Undefined for text that is not
 * JSON (a template then writes it as it is, and so does the caller).
 */
export function pythonJsonText(text: string): string | undefined {
  const p = new Reader(text);
  try {
    p.space();
    const out = p.value();
    p.space();
    return p.at === text.length ? out : undefined;
  } catch (e) {
    if (e instanceof NotJson) return undefined;
    throw e;
  }
}

/** A JSON value (as JavaScript holds it) written the way Python writes what it reads from `JSON.stringify(value)`. */
export function pythonJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('not a JSON value');
  return pythonJsonText(text)!;
}

class NotJson extends Error {}

const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

class Reader {
  at = 0;
  constructor(private readonly s: string) {}

  space(): void {
    while (this.at < this.s.length && ' \t\n\r'.includes(this.s[this.at]!)) this.at++;
  }

  value(): string {
    const c = this.s[this.at];
    if (c === '{') return this.container('}', true);
    if (c === '[') return this.container(']', false);
    if (c === '"') return this.string();
    for (const w of ['true', 'false', 'null']) {
      if (this.s.startsWith(w, this.at)) {
        this.at += w.length;
        return w;
      }
    }
    NUMBER.lastIndex = this.at;
    const m = NUMBER.exec(this.s);
    if (!m) throw new NotJson();
    this.at += m[0].length;
    return m[1] === undefined && m[2] === undefined ? pythonInt(m[0]) : pythonFloat(Number(m[0]));
  }

  private string(): string {
    STRING.lastIndex = this.at;
    const m = STRING.exec(this.s);
    if (!m) throw new NotJson();
    this.at += m[0].length;
    // Python escapes what JSON.stringify escapes (quote, backslash, control characters) the same way.
    return JSON.stringify(JSON.parse(m[0]) as string);
  }

  private container(close: string, keyed: boolean): string {
    this.at++;
    this.space();
    let out = keyed ? '{' : '[';
    if (this.s[this.at] === close) {
      this.at++;
      return out + close;
    }
    for (let first = true; ; first = false) {
      if (!first) out += ', ';
      if (keyed) {
        if (this.s[this.at] !== '"') throw new NotJson();
        out += this.string();
        this.space();
        if (this.s[this.at] !== ':') throw new NotJson();
        this.at++;
        this.space();
        out += ': ';
      }
      out += this.value();
      this.space();
      const c = this.s[this.at];
      this.at++;
      if (c === close) return out + close;
      if (c !== ',') throw new NotJson();
      this.space();
    }
  }
}

/** An integer literal as Python's `int` writes it back (`-0` is `0`). */
function pythonInt(literal: string): string {
  return literal === '-0' ? '0' : literal;
}

/**
 * Python's `repr(float)`: the shortest digits that read back as the same double (JavaScript finds
 * the same ones), positional for exponents -4 … 15 with at least one decimal, else scientific with a
 * signed two-digit exponent; `Infinity`/`NaN` as `json.dumps` writes them.
 */
export function pythonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mant, expText] = x.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  const neg = mant.startsWith('-');
  const digits = mant.replace('-', '').replace('.', '');
  const sign = neg ? '-' : '';
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    const int = digits.slice(0, exp + 1).padEnd(exp + 1, '0');
    const frac = digits.slice(exp + 1);
    return `${sign}${int}.${frac || '0'}`;
  }
  return sci();
  function sci(): string {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
}
