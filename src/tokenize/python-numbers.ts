import { Interpreter, type Template } from '@huggingface/jinja';
import { pythonJsonText } from '../util/python-json.js';

// A chat template's `tojson` is `json.dumps` in a Python trainer (transformers' filter), which writes
// a float as Python's repr (`5e-05`, `1e-07`, `1e+16`); @huggingface/jinja writes JavaScript's
// (`0.00005`, `1e-7`, `10000000000000000`). Counts must be of the text the trainer tokenises, so a
// template other than the built-in Qwen3 one is rendered for counting with its `tojson` output's
// numbers rewritten as Python writes them. @huggingface/jinja has no filter hook: its interpreter's
// filter step is wrapped once, and the rewrite applies only inside `renderPythonNumbers`.

interface FilterNode {
  type: string;
  value?: string;
  callee?: { type: string; value?: string };
}
type ApplyFilter = (
  this: unknown,
  operand: unknown,
  filterNode: FilterNode,
  environment: unknown,
) => { value: unknown; constructor: new (v: string) => unknown };

let active = 0;
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const proto = Interpreter.prototype as unknown as { applyFilter: ApplyFilter };
  const original = proto.applyFilter;
  proto.applyFilter = function (operand, filterNode, environment) {
    const out = original.call(this, operand, filterNode, environment);
    if (active === 0 || typeof out.value !== 'string') return out;
    const name = filterNode.type === 'Identifier' ? filterNode.value : filterNode.type === 'CallExpression' ? filterNode.callee?.value : undefined;
    if (name !== 'tojson') return out;
    const text = pythonNumbersInJson(out.value);
    return text === out.value ? out : new out.constructor(text);
  } as ApplyFilter;
}

/** `template` rendered with `vars`, every `tojson` output's numbers as Python's `json.dumps` writes them. */
export function renderPythonNumbers(template: Template, vars: Record<string, unknown>): string {
  install();
  active++;
  try {
    return template.render(vars);
  } finally {
    active--;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/**
 * JSON text (any indent or separators) with each number that JavaScript wrote for a fraction or in
 * exponent form rewritten as Python's float repr; integers JavaScript wrote as digits stay digits
 * (JSON gave Python an int there). Strings are copied as they are.
 */
export function pythonNumbersInJson(json: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < json.length && json.charCodeAt(i) !== 34; i++) if (json.charCodeAt(i) === 92 /* \ */) i++;
      continue;
    }
    if (c !== 45 /* - */ && (c < 48 || c > 57)) continue;
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(json);
    if (!m) continue;
    const literal = m[0];
    if (/[.eE]/.test(literal)) {
      const py = pythonJsonText(literal) ?? literal;
      if (py !== literal) {
        out += json.slice(from, i) + py;
        from = i + literal.length;
      }
    }
    i += literal.length - 1;
  }
  return from === 0 ? json : out + json.slice(from);
}
