import type { AnyTransform } from '../src/transform/define.js';
import hooksChannel from './hooks/channel.js';
import hooksFeedbackStyle from './hooks/feedback-style.js';
import hooksOrder from './hooks/order.js';
import hooksRename from './hooks/rename.js';
import hooksThreshold from './hooks/threshold.js';
import hooksToggle from './hooks/toggle.js';
import skillsBodyLayout from './skills/body-layout.js';
import skillsCatalogOrder from './skills/catalog-order.js';
import skillsDescribe from './skills/describe.js';
import skillsDistractors from './skills/distractors.js';
import skillsRename from './skills/rename.js';
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
  'skills.distractors': skillsDistractors,
  'skills.rename': skillsRename,
  'skills.catalog-order': skillsCatalogOrder,
  'skills.describe': skillsDescribe,
  'skills.body-layout': skillsBodyLayout,
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
  'hooks.toggle': hooksToggle,
  'hooks.threshold': hooksThreshold,
  'hooks.rename': hooksRename,
  'hooks.feedback-style': hooksFeedbackStyle,
  'hooks.channel': hooksChannel,
  'hooks.order': hooksOrder,
} satisfies Record<string, AnyTransform>;
