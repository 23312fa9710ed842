import { RenderError } from '../errors.js';
import { TextKeyedCache } from '../util/bounded-cache.js';

/**
 * The prompt template language, deliberately small: `{{path.to.value}}` slots and
 * `{{#each path}}...{{/each}}` blocks, where `{{this}}` is the item and other paths are looked
 * up on the item first, then on the root context. Anything else between braces is literal text.
 */
type Node = { kind: 'text'; text: string } | { kind: 'slot'; path: string } | { kind: 'each'; path: string; body: Node[] };

const TAG = /\{\{\s*(#each\s+[A-Za-z_][\w.]*|\/each|this(?:\.[\w.]+)?|[A-Za-z_][\w.]*)\s*\}\}/g;

const parsed = new TextKeyedCache<Node[]>(1_500_000);

function parse(text: string): Node[] {
  const hit = parsed.get(text);
  if (hit) return hit;
  const root: Node[] = [];
  const stack: { nodes: Node[]; path: string }[] = [{ nodes: root, path: '' }];
  let last = 0;
  for (const m of text.matchAll(TAG)) {
    const top = stack[stack.length - 1]!;
    if (m.index > last) top.nodes.push({ kind: 'text', text: text.slice(last, m.index) });
    last = m.index + m[0].length;
    const tag = m[1]!;
    if (tag.startsWith('#each')) {
      const node: Node = { kind: 'each', path: tag.slice(5).trim(), body: [] };
      top.nodes.push(node);
      stack.push({ nodes: node.body, path: node.path });
    } else if (tag === '/each') {
      if (stack.length === 1) throw new Error('template: {{/each}} without {{#each}}');
      stack.pop();
    } else {
      top.nodes.push({ kind: 'slot', path: tag });
    }
  }
  if (stack.length > 1) throw new Error(`template: {{#each ${stack[stack.length - 1]!.path}}} is not closed`);
  if (last < text.length) root.push({ kind: 'text', text: text.slice(last) });
  parsed.set(text, root);
  return root;
}

/** The root-context paths a template reads (inside `each` blocks, only the array path). */
export function templateSlots(text: string): string[] {
  const out = new Set<string>();
  const walk = (nodes: Node[], inEach: boolean) => {
    for (const n of nodes) {
      if (n.kind === 'slot' && !inEach && !n.path.startsWith('this')) out.add(n.path);
      if (n.kind === 'each') {
        if (!inEach) out.add(n.path);
        walk(n.body, true);
      }
    }
  };
  walk(parse(text), false);
  return [...out].sort();
}

export function hasSlots(text: string): boolean {
  return text.includes('{{') && parse(text).some((n) => n.kind !== 'text');
}

/**
 * Fill a template. `defaults` maps a root path to its default. A slot with no value and no default
 * throws RenderError naming `context.<path>`.
 */
export function fillTemplate(text: string, context: unknown, defaults: Record<string, unknown> = {}): string {
  if (!text.includes('{{')) return text;
  return renderNodes(parse(text), [context], defaults);
}

function renderNodes(nodes: Node[], scopes: unknown[], defaults: Record<string, unknown>): string {
  let out = '';
  for (const n of nodes) {
    if (n.kind === 'text') out += n.text;
    else if (n.kind === 'slot') out += formatValue(resolve(n.path, scopes, defaults));
    else {
      const list = resolve(n.path, scopes, defaults);
      if (!Array.isArray(list)) throw new RenderError(`context.${n.path}`, 'expected an array for {{#each}}');
      for (const item of list) out += renderNodes(n.body, [item, ...scopes], defaults);
    }
  }
  return out;
}

function resolve(path: string, scopes: unknown[], defaults: Record<string, unknown>): unknown {
  if (path === 'this') return scopes[0];
  if (path.startsWith('this.')) {
    const v = lookup(scopes[0], path.slice(5));
    if (v === undefined) throw new RenderError(`context.${path}`, 'missing template variable');
    return v;
  }
  for (const scope of scopes) {
    const v = lookup(scope, path);
    if (v !== undefined) return v;
  }
  if (path in defaults) return defaults[path];
  throw new RenderError(`context.${path}`, 'missing template variable');
}

function lookup(value: unknown, path: string): unknown {
  let cur = value;
  for (const key of path.split('.')) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function formatValue(v: unknown): string {
  if (v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return JSON.stringify(v);
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return v.map(formatValue).join(', ');
  return JSON.stringify(v);
}
