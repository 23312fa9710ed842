// Message content, call arguments and JSON Schema walks (property names, refs, stale keys, titles, descriptions).

export const contentText = (c) => (typeof c === 'string' ? c : Array.isArray(c) ? c.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n') : '');
export const parseArgsOf = (a) => (typeof a === 'string' ? JSON.parse(a) : a);
export function canon(v) {
  if (Array.isArray(v)) return `[${v.map(canon).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
export function renameKeys(v, map) {
  if (Array.isArray(v)) return v.map((x) => renameKeys(x, map));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [(Object.hasOwn(map, k) ? map[k] : undefined) ?? k, renameKeys(x, map)]));
  return v;
}
export function propertyNames(schema, out = new Set()) {
  if (Array.isArray(schema)) {
    for (const s of schema) propertyNames(s, out);
    return out;
  }
  if (!schema || typeof schema !== 'object') return out;
  if (schema.properties && typeof schema.properties === 'object') for (const k of Object.keys(schema.properties)) out.add(k);
  for (const [k, v] of Object.entries(schema))
    if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') propertyNames(k === 'properties' ? Object.values(v ?? {}) : v, out);
  return out;
}
// A local `$ref` (`#/$defs/FlightInfo`) resolved inside the schema it stands in, or undefined.
export function resolveRef(root, ref) {
  if (ref === '#') return root;
  if (typeof ref !== 'string' || !ref.startsWith('#/')) return undefined;
  let t = root;
  for (const seg of ref.slice(2).split('/')) t = t && typeof t === 'object' ? t[seg.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return t;
}
export function danglingRefs(schema, root = schema, out = []) {
  if (Array.isArray(schema)) {
    for (const s of schema) danglingRefs(s, root, out);
    return out;
  }
  if (!schema || typeof schema !== 'object') return out;
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith('#') && resolveRef(root, v) === undefined) out.push(v);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') danglingRefs(v, root, out);
  }
  return out;
}
// Argument keys under a renamed-away name at a place where the tool's schema declares the new
// name (through $ref, anyOf/oneOf/allOf, array items). A key the schema does not declare there is
// the log's own data and never counts.
export function staleKeys(args, schema, renamed, root = schema, out = [], depth = 0) {
  if (depth > 64 || !schema || typeof schema !== 'object') return out;
  const branches = [];
  const add = (s, seen) => {
    if (!s || typeof s !== 'object' || Array.isArray(s) || seen.has(s)) return;
    seen.add(s);
    branches.push(s);
    if (typeof s.$ref === 'string') add(resolveRef(root, s.$ref), seen);
    for (const k of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[k])) for (const b of s[k]) add(b, seen);
  };
  add(schema, new Set());
  if (Array.isArray(args)) {
    for (const b of branches)
      if (b.items && typeof b.items === 'object' && !Array.isArray(b.items)) for (const x of args) staleKeys(x, b.items, renamed, root, out, depth + 1);
    return out;
  }
  if (!args || typeof args !== 'object') return out;
  const props = new Map();
  for (const b of branches)
    if (b.properties && typeof b.properties === 'object') for (const [k, v] of Object.entries(b.properties)) (props.get(k) ?? props.set(k, []).get(k)).push(v);
  for (const [k, x] of Object.entries(args)) {
    if (renamed[k] !== undefined && props.has(renamed[k]) && !props.has(k)) out.push(k);
    for (const sub of props.get(k) ?? []) staleKeys(x, sub, renamed, root, out, depth + 1);
  }
  return out;
}
// Every schema object nested in a schema (itself included), never inside the values it carries.
export function eachSchemaNode(schema, visit) {
  if (Array.isArray(schema)) {
    for (const s of schema) eachSchemaNode(s, visit);
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  visit(schema);
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') continue;
    if (k === 'properties' || k === '$defs' || k === 'definitions' || k === 'patternProperties') {
      if (v && typeof v === 'object') eachSchemaNode(Object.values(v), visit);
    } else if (v && typeof v === 'object') eachSchemaNode(v, visit);
  }
}
// Keys of the objects in `default`/`const`/`examples`/`enum` values left under a renamed-away name
// where the schema they are values of declares the new one (the rule staleKeys reads calls by).
export function staleValueKeys(schema, renamed) {
  const out = [];
  eachSchemaNode(schema, (s) => {
    for (const k of ['default', 'const']) if (k in s) for (const key of staleKeys(s[k], s, renamed, schema)) out.push(`${k} ${key}`);
    for (const k of ['examples', 'enum'])
      if (Array.isArray(s[k])) for (const x of s[k]) for (const key of staleKeys(x, s, renamed, schema)) out.push(`${k} ${key}`);
  });
  return out;
}
// The property names a schema's discriminators (`{"propertyName": ..}` beside a oneOf) name.
export function discriminatorNames(schema) {
  const out = [];
  eachSchemaNode(schema, (s) => {
    if (s.discriminator && typeof s.discriminator.propertyName === 'string') out.push(s.discriminator.propertyName);
  });
  return out;
}
export function titles(schema) {
  const out = [];
  eachSchemaNode(schema, (s) => {
    if (typeof s.title === 'string') out.push(s.title);
  });
  return out;
}
export function descriptions(schema, out = []) {
  if (Array.isArray(schema)) {
    for (const s of schema) descriptions(s, out);
    return out;
  }
  if (!schema || typeof schema !== 'object') return out;
  for (const [k, v] of Object.entries(schema)) {
    if ((k === 'description' || k === 'title') && typeof v === 'string') out.push(v);
    else if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') descriptions(k === 'properties' ? Object.values(v ?? {}) : v, out);
  }
  return out;
}
