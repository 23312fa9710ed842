import { describe, expect, it } from 'vitest';
import { mcpToolSchema } from '../src/harness/schema.js';
import { normaliseTool, quickMcpTool } from '../src/harness/tools.js';
import { createRng, type Rng } from '../src/transform/rng.js';

// The hand reading of an MCP tool stands beside mcpToolSchema: where it answers, zod must accept the
// tool and parse it to the same fields; where zod refuses, the hand reading must not answer.

const ODD: unknown[] = [null, '', 'x', 0, 1.5, true, false, [], {}, [{}], { type: 'string' }, undefined];

function tool(rng: Rng): Record<string, unknown> {
  const t: Record<string, unknown> = {
    name: rng.pick(['search_items', 'get.order', 'Get Weather', 'x']),
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, ...(rng.chance(0.5) ? { required: ['q'] } : {}) },
  };
  if (rng.chance(0.7)) t.description = rng.pick(['Search.', '', 'Find an order by id.']);
  if (rng.chance(0.3)) t.title = rng.pick(['Search', '']);
  if (rng.chance(0.3)) t.annotations = { readOnlyHint: rng.chance(0.5) };
  if (rng.chance(0.2)) t.outputSchema = { type: 'object' };
  if (rng.chance(0.2)) t._meta = { source: 'server' };
  const r = rng.int(10);
  const key = rng.pick(['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations', 'extra']);
  if (r === 0) t[key] = rng.pick(ODD);
  else if (r === 1) delete t[key];
  else if (r === 2) (t.inputSchema as Record<string, unknown>)[rng.pick(['constructor', 'toString', '10'])] = rng.pick(ODD);
  else if (r === 4 && t.annotations) (t.annotations as Record<string, unknown>)[rng.pick(['constructor', 'hint'])] = rng.pick(ODD);
  // Through JSON, as tool files arrive (a `__proto__` key then is an own key).
  const text = JSON.stringify(t);
  if (r === 3) return JSON.parse(text.replace('"inputSchema":{', '"inputSchema":{"__proto__":{"x":1},')) as Record<string, unknown>;
  if (r === 5) return JSON.parse(text.replace('{', '{"__proto__":{"x":1},')) as Record<string, unknown>;
  return JSON.parse(text) as Record<string, unknown>;
}

const fields = (t: { name: string; title?: string; description?: string; inputSchema: unknown; annotations?: unknown }) =>
  JSON.stringify({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema, annotations: t.annotations });

describe('quickMcpTool', () => {
  it('answers only for tools zod accepts, with what zod parses them to, copying the records', () => {
    const rng = createRng('quick-mcp');
    let quick = 0;
    let refused = 0;
    for (let i = 0; i < 4000; i++) {
      const t = tool(rng);
      const z = mcpToolSchema().safeParse(t);
      if (!z.success) refused++;
      const q = quickMcpTool(t);
      if (q === undefined) continue;
      quick++;
      expect(z.success, JSON.stringify(t)).toBe(true);
      expect(fields(q)).toBe(fields(z.data!));
      expect(q.inputSchema).not.toBe(t.inputSchema);
      if (q.annotations !== undefined) expect(q.annotations).not.toBe(t.annotations);
    }
    expect(quick).toBeGreaterThan(2000);
    expect(refused).toBeGreaterThan(300);
  });

  it('normaliseTool makes the same tool, or refuses, as through zod alone', () => {
    const rng = createRng('quick-mcp-tools');
    for (let i = 0; i < 1000; i++) {
      const t = tool(rng);
      const got = normaliseTool(t);
      const z = mcpToolSchema().safeParse(t);
      if (!z.success) {
        expect('issues' in got, JSON.stringify(t)).toBe(true);
        continue;
      }
      if (!('tool' in got)) continue; // refused for its name, whichever reading
      expect(got.tool.sourceName).toBe(z.data.name);
      expect(got.tool.description).toBe(z.data.description ?? '');
      expect(got.tool.title).toBe(z.data.title);
      expect(JSON.stringify(got.tool.annotations)).toBe(JSON.stringify(z.data.annotations));
    }
  });
});
