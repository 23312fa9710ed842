/**
 * A migration plan: how the elements of harness version A correspond to those of version B, with a
 * score and the evidence for each match, and what has no counterpart. Plain JSON data; it is
 * written as YAML a person reads, edits and commits (plan-file.ts) and compiled into the engine's
 * RewritePlan plus the per-call edits a RewritePlan cannot hold (compile.ts).
 *
 * Parameter paths are dotted key paths inside the tool's arguments, measured below a wrapper the
 * shape edit removes or adds: with `shape: unwrap request`, A's `request.isbn` is written `isbn`;
 * with `shape: wrap loan`, B's `loan.days` is written `days`.
 */
export const PLAN_FORMAT = 1;

/** An A parameter's counterpart: B's path, or null when B has none (a call that uses it cannot be carried). */
export type ParamMap = Record<string, string | null>;
/** Enum values per A parameter path: A value → B value, or null when B has no counterpart. */
export type ValueMap = Record<string, Record<string, string | null>>;

export type Shape = { wrap: string } | { unwrap: string };

/** How a call of one A tool becomes a call of one B tool. */
export interface CallMapping {
  to: string;
  shape?: Shape;
  params: ParamMap;
  values: ValueMap;
  /** Values the plan supplies for B parameters A's calls never had (a person adds them). */
  fill: Record<string, unknown>;
  /** Required B parameters with no counterpart and no fill: every call of this mapping is stopped. */
  needs: string[];
}

export interface ToolEntry {
  from: string;
  /** One B tool (`to`), a split by one A parameter's value (`split`), or removed (neither). */
  map?: CallMapping;
  split?: { by: string; cases: Record<string, CallMapping | null> };
  score: number;
  evidence: string[];
  /** With `-t`: records that call this tool, and records this entry stops. */
  records?: number;
  stops?: number;
}

export interface NamedEntry {
  from: string;
  /** null: removed (no counterpart in B). */
  to: string | null;
  score: number;
  evidence: string[];
  records?: number;
}

export interface SectionEntry {
  from: string;
  /** The B sections holding A's section content, in B's order (empty: removed). */
  to: string[];
  score: number;
  evidence: string[];
}

/** A proposal from a model (`--model-url`) for an element inference left without a counterpart. Never applied. */
export interface Proposal {
  kind: 'tool' | 'skill' | 'hook';
  from: string;
  to: string;
  reason: string;
  model: string;
}

export interface MigrationPlan {
  format: number;
  /** `path`: where the snapshot was read, relative to the plan file's folder (apply reads A there). */
  from: { harness: string; version: string; path?: string };
  to: { harness: string; version: string; path?: string };
  tools: ToolEntry[];
  skills: NamedEntry[];
  hooks: NamedEntry[];
  sections: SectionEntry[];
  added: { tools: string[]; skills: string[]; hooks: string[]; sections: string[] };
  proposals: Proposal[];
  /** With `-t`: records read. */
  records?: number;
}
