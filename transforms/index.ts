import type { AnyTransform } from '../src/transform/define.js';
import toolsDescribe from './tools/describe.js';
import toolsDistractors from './tools/distractors.js';
import toolsOrder from './tools/order.js';
import toolsParamOrder from './tools/param-order.js';
import toolsParamRename from './tools/param-rename.js';
import toolsRename from './tools/rename.js';
import toolsSchemaStyle from './tools/schema-style.js';
import promptHeadingStyle from './prompt/heading-style.js';
import promptListStyle from './prompt/list-style.js';
import promptMergeSplit from './prompt/merge-split.js';
import promptPlacement from './prompt/placement.js';
import promptRuleOrder from './prompt/rule-order.js';
import promptSectionOrder from './prompt/section-order.js';
import promptSpacing from './prompt/spacing.js';

/**
 * Every built-in transform, keyed by id, in application order (skills, tools, prompt, hooks).
 * Imported by hand: nothing scans the file system for code.
 */
export const builtinTransforms = {
  'tools.distractors': toolsDistractors,
  'tools.order': toolsOrder,
  'tools.rename': toolsRename,
  'tools.param-rename': toolsParamRename,
  'tools.param-order': toolsParamOrder,
  'tools.schema-style': toolsSchemaStyle,
  'tools.describe': toolsDescribe,
  'prompt.merge-split': promptMergeSplit,
  'prompt.section-order': promptSectionOrder,
  'prompt.rule-order': promptRuleOrder,
  'prompt.placement': promptPlacement,
  'prompt.heading-style': promptHeadingStyle,
  'prompt.list-style': promptListStyle,
  'prompt.spacing': promptSpacing,
} satisfies Record<string, AnyTransform>;

export { builtinWords } from './words/index.js';
