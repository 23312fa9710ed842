/**
 * A Python literal as `repr()` writes dicts and lists — what many function-calling sets hold where
 * JSON was meant (`{'name': 'f', 'arguments': {'x': True}}`). Strings in single or double quotes
 * with backslash escapes, numbers, True/False/None, dicts, lists and tuples. Returns undefined for
 * anything else (never throws): the caller reports the field as not JSON.
 */
export function parseLoose(text: string): unknown {
  const p = new LooseParser(text);
  try {
    p.ws();
    const v = p.value();
    p.ws();
    return p.done() ? v : undefined;
  } catch {
    return undefined;
  }
}

/** One call of a Python call list: the function's name, its positional arguments, and its keyword arguments in written order. */
export interface PythonCall {
  name: string;
  positional: unknown[];
  args: Record<string, unknown>;
}

/**
 * A list of Python calls as ToolACE-style sets write an assistant's tool calls:
 * `[get_weather(city="Paris"), Market Trends API(trend_type='INDEXES', limit=5)]` — names up to
 * the `(` (spaces and dots allowed, as those sets name tools for people), keyword arguments whose
 * values are Python literals; positional arguments (before the keywords) are returned apart, for
 * the caller to name. The brackets may be left out for a single call. Undefined when the text is
 * not such a list: the caller keeps it as text or reports it.
 */
export function parsePythonCalls(text: string): PythonCall[] | undefined {
  const p = new LooseParser(text.trim());
  try {
    const calls = p.calls();
    return calls.length > 0 && p.done() ? calls : undefined;
  } catch {
    return undefined;
  }
}

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0', '\\': '\\', "'": "'", '"': '"', '/': '/' };

class LooseParser {
  private i = 0;
  constructor(private readonly s: string) {}

  done(): boolean {
    return this.i >= this.s.length;
  }

  calls(): PythonCall[] {
    const bracket = this.s[this.i] === '[';
    if (bracket) this.i++;
    const out: PythonCall[] = [];
    for (;;) {
      this.ws();
      if (bracket && this.s[this.i] === ']' && out.length === 0) break;
      const open = this.s.indexOf('(', this.i);
      if (open < 0) throw new Error('call');
      const name = this.s.slice(this.i, open).trim();
      if (name === '' || /[()[\]{}=,"'\n]/.test(name)) throw new Error('name');
      this.i = open + 1;
      const args: Record<string, unknown> = {};
      const positional: unknown[] = [];
      for (;;) {
        this.ws();
        if (this.s[this.i] === ')') break;
        const m = /^[A-Za-z_][\w.-]*(?=\s*=(?!=))/.exec(this.s.slice(this.i, this.i + 256));
        if (!m) {
          if (Object.keys(args).length > 0) throw new Error('positional after keyword');
          positional.push(this.value());
          this.ws();
          if (this.s[this.i] === ',') this.i++;
          else if (this.s[this.i] !== ')') throw new Error('comma');
          continue;
        }
        this.i += m[0].length;
        this.ws();
        if (this.s[this.i++] !== '=') throw new Error('keyword');
        this.ws();
        Object.defineProperty(args, m[0], { value: this.value(), enumerable: true, writable: true, configurable: true });
        this.ws();
        if (this.s[this.i] === ',') this.i++;
        else if (this.s[this.i] !== ')') throw new Error('comma');
      }
      this.i++;
      out.push({ name, positional, args });
      this.ws();
      if (this.s[this.i] === ',') {
        this.i++;
        continue;
      }
      break;
    }
    if (bracket) {
      this.ws();
      if (this.s[this.i++] !== ']') throw new Error('bracket');
    }
    this.ws();
    return out;
  }

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  value(): unknown {
    const c = this.s[this.i];
    if (c === '{') return this.dict();
    if (c === '[' || c === '(') return this.list(c === '[' ? ']' : ')');
    if (c === "'" || c === '"') return this.string(c);
    for (const [word, v] of [
      ['True', true],
      ['False', false],
      ['None', null],
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (this.s.startsWith(word, this.i) && !/\w/.test(this.s[this.i + word.length] ?? '')) {
        this.i += word.length;
        return v;
      }
    }
    const m = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(this.s.slice(this.i, this.i + 64));
    if (!m) throw new Error('unexpected');
    this.i += m[0].length;
    return Number(m[0]);
  }

  private dict(): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return out;
      }
      const q = this.s[this.i];
      if (q !== "'" && q !== '"') throw new Error('key');
      const k = this.string(q);
      this.ws();
      if (this.s[this.i++] !== ':') throw new Error('colon');
      this.ws();
      Object.defineProperty(out, k, { value: this.value(), enumerable: true, writable: true, configurable: true });
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== '}') throw new Error('comma');
    }
  }

  private list(close: string): unknown[] {
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.ws();
      if (this.s[this.i] === close) {
        this.i++;
        return out;
      }
      out.push(this.value());
      this.ws();
      if (this.s[this.i] === ',') this.i++;
      else if (this.s[this.i] !== close) throw new Error('comma');
    }
  }

  private string(q: string): string {
    this.i++;
    let out = '';
    while (this.i < this.s.length) {
      const c = this.s[this.i++]!;
      if (c === q) return out;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = this.s[this.i++] ?? '';
      if (e === 'u' || e === 'x') {
        const n = e === 'u' ? 4 : 2;
        const hex = this.s.slice(this.i, this.i + n);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== n) throw new Error('escape');
        out += String.fromCharCode(parseInt(hex, 16));
        this.i += n;
      } else out += ESCAPES[e] ?? `\\${e}`;
    }
    throw new Error('unterminated');
  }
}
