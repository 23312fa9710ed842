import type { LocatedDoc } from '../util/located.js';

/** Where each harness part came from, for cross-reference problems. */
export interface HarnessOrigins {
  harnessFile: string;
  harnessDoc?: LocatedDoc;
  /** `keyPath`: where the skill sits inside its file (`skills.items.<i>` for inline skills, empty for SKILL.md). */
  skills: Record<string, { file: string; line?: number; toolLines?: (number | undefined)[]; keyPath?: string }>;
  tools: Record<string, { file: string; line?: number }>;
  hooks: Record<string, { file: string; line?: number; doc?: LocatedDoc; path: (string | number)[] }>;
  sections: Record<string, { file: string }>;
}
