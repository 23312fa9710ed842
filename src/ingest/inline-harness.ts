import { renderTools } from '../harness/render.js';
import { normaliseTool } from '../harness/tools.js';
import { unknownTypes } from '../harness/schema-spellings.js';
import type { Harness, Section, Tool } from '../harness/types.js';
import type { Problem } from '../problems.js';
import { textOf, type Trajectory } from '../trajectory/types.js';
import { compileSchema } from '../util/json-schema.js';
import { quickCheck } from '../util/quick-schema.js';
import { sha256 } from '../util/hash.js';

/**
 * Per-record harnesses (`--harness` omitted, or `harness: inline`): a record's own `tools` and its
 * system message are its harness. Records with the same (tools as written, system text) share one
 * derived harness — and so its pooled states — whatever else differs (see inlineHash); the same
 * tool name may have different schemas in different records, since each harness is separate.
 *
 * The derived harness is named `inline`, its version is the first 12 hex digits of its hash; its one
 * prompt section (`system`) is the logged system message with surrounding blank space trimmed,
 * literal (never a template) and pinned (no transform moves it out of the system message); it has
 * no skills and no hooks, so transforms of tools and prompt text apply and those of skills and
 * hooks have nothing to act on.
 */

/** The section id of an inline harness's system message. */
export const INLINE_SECTION = 'system';

export interface InlineHarness {
  /** Undefined when the record's tools cannot make a harness (see problems). */
  harness?: Harness;
  /** sha256 of the canonical (tools, system text): the identity that records share. */
  hash: string;
  /** Errors naming the record's `tools.<i>` fields. */
  problems: Problem[];
}

/**
 * The identity of a record's inline harness: its tools as written (JSON key order included) and its
 * system text. The harness is made from the record's own objects, and its tool list is what every
 * variant shows, so records whose tools differ only in key order must not share one: the first
 * such record would lend its key order to the others, and output would depend on which record a
 * process (a worker, a shard, the cache after an eviction) met first. Plain JSON is also a third of
 * the cost of canonical JSON on the per-record path.
 */
export function inlineHash(rec: Trajectory): string {
  return sha256(JSON.stringify({ tools: rec.tools ?? [], system: systemText(rec) }));
}

/** Derive the inline harness of a record (pure: the same record content gives an equal harness). */
export function deriveInlineHarness(rec: Trajectory, at: { file: string; line: number }, hash = inlineHash(rec)): InlineHarness {
  const problems: Problem[] = [];
  const err = (path: string, message: string) => problems.push({ file: at.file, line: at.line, id: rec.id, path, message, severity: 'error' });
  const tools: Tool[] = [];
  const seen = new Map<string, number>();
  (rec.tools ?? []).forEach((raw, i) => {
    const one = normaliseTool(raw);
    if (!('tool' in one)) {
      for (const issue of one.issues) err(['tools', i, ...issue.path].join('.'), issue.message);
      return;
    }
    const prior = seen.get(one.tool.name);
    if (prior !== undefined) return void err(`tools.${i}.function.name`, `duplicate tool "${one.tool.name}" (also tools.${prior})`);
    seen.set(one.tool.name, i);
    const unknown = unknownTypes(one.tool.parameters, ['tools', i, ...(one.tool.sourceFormat === 'mcp' ? ['inputSchema'] : ['function', 'parameters'])]);
    if (unknown.length > 0) return void unknown.forEach((u) => err(u.path.join('.'), u.message));
    // A schema the quick tier can build is well-formed; only the others pay for an ajv compile.
    const compiled = quickCheck(one.tool.parameters, 'annotation') !== null ? null : compileSchema(one.tool.parameters);
    if (compiled && 'error' in compiled) return void err(`tools.${i}.function.parameters`, `not a valid JSON Schema: ${compiled.error}`);
    tools.push(one.tool);
  });
  if (problems.length > 0) return { hash, problems };
  const text = systemText(rec);
  const sections: Section[] = text === null || text === '' ? [] : [{ id: INLINE_SECTION, kind: 'text', text, placement: 'system' }];
  const harness: Harness = {
    name: 'inline',
    version: hash.slice(0, 12),
    sections,
    pinned: sections.map((s) => s.id),
    unordered: [],
    separator: '\n\n',
    catalog: { id: 'skills', title: 'Skills' },
    variables: {},
    skillNaming: 'agent-skills',
    skillLoader: null,
    skills: [],
    tools,
    hooks: [],
    hookMessages: { namePrefix: 'hook:' },
    promptStyle: null,
    literalPrompt: true,
  };
  return { harness, hash, problems };
}

/** The record's system message text, trimmed (blank space around it is the record's own), or null. */
function systemText(rec: Trajectory): string | null {
  const first = rec.messages[0];
  return first && first.role === 'system' ? textOf(first.content).trim() : null;
}

/**
 * The inline harnesses of a run and what belongs to each (its state pool), kept in a least-recently
 * used cache keyed by the harness hash. What is made for a harness depends only on the harness and
 * the run (pools are seeded by the run seed and the hash, then the slot), so output never depends on
 * the cache size or on what was evicted: an evicted harness is derived again and gives the same
 * states.
 *
 * A harness enters the cache at its second sighting (its hash is among the last SIGHTINGS seen
 * once): where every record has tools of its own (xLAM, BFCL, glaive shapes) a harness and its
 * sampled states (~0.5–1 MB each, with what the checks derive from them) are used by one record
 * only, and holding the last 16 kept each alive across several young-generation collections, so
 * that all of them were promoted and collected as old — most of the old generation's growth and
 * of the peak RSS of such runs. Logs that repeat a few tool sets keep them from their second record.
 */
const SIGHTINGS = 256;

export class InlineHarnesses<Extra> {
  private readonly cache = new Map<string, { inline: InlineHarness; extra: Extra | undefined }>();
  /** Hashes seen once lately, oldest first (a Set keeps insertion order). */
  private readonly sightings = new Set<string>();

  constructor(
    private readonly make: (h: Harness, hash: string) => Extra,
    readonly capacity = 16,
  ) {}

  /**
   * The record's harness and its extra (state pool). The record's `tools` become the harness's
   * rendered list (the shape every variant shows), so checks and the round trip compare like with like.
   */
  for(rec: Trajectory, at: { file: string; line: number }): { inline: InlineHarness; extra: Extra | undefined } {
    const hash = inlineHash(rec);
    let hit = this.cache.get(hash);
    if (hit) {
      this.cache.delete(hash);
      this.cache.set(hash, hit);
    } else {
      const inline = deriveInlineHarness(rec, at, hash);
      hit = { inline, extra: inline.harness ? this.make(inline.harness, hash) : undefined };
      if (this.sightings.delete(hash)) {
        this.cache.set(hash, hit);
        if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
      } else {
        this.sightings.add(hash);
        if (this.sightings.size > SIGHTINGS) this.sightings.delete(this.sightings.keys().next().value!);
      }
    }
    if (!hit.inline.harness) {
      // Problems name this record's place, not the first record's that had the same tools.
      return { inline: { ...hit.inline, problems: hit.inline.problems.map((p) => ({ ...p, file: at.file, line: at.line, id: rec.id })) }, extra: undefined };
    }
    if (rec.tools) rec.tools = renderTools(hit.inline.harness);
    return hit;
  }

  /** Harnesses held (seen at least twice lately). */
  get size(): number {
    return this.cache.size;
  }
}
