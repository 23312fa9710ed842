/** The public API of hsa, for scripts and tests. */
import { builtinTransformsModule, useBuiltinTransforms } from './transform/builtins.js';

// The API's registry has the built-in transforms, as the CLI's has (the engine never imports
// transforms/). A plugin imports this module too: what the CLI or a test handed in stays.
if (builtinTransformsModule() === undefined) useBuiltinTransforms(new URL('../transforms/index.js', import.meta.url).href);

export { loadHarness, type LoadResult } from './harness/load.js';
export {
  renderPrompt,
  renderSystemPrompt,
  renderTools,
  catalogText,
  renderRecordPrompt,
  renderedSections,
  promptLayout,
  type PromptLayout,
} from './harness/render.js';
export { fillTemplate, templateSlots } from './harness/template.js';
export type * from './harness/types.js';
export { readTrajectories, parseTrajectoryLine, type ReadItem } from './trajectory/read.js';
export { checkTrajectory, type CheckContext, type SystemPromptMode, type PromptOutcome } from './trajectory/check.js';
export { deriveInlineHarness, inlineHash, InlineHarnesses, type InlineHarness } from './ingest/inline-harness.js';
export type * from './trajectory/types.js';
export { formatProblem, problemKind, type Problem } from './problems.js';
export { importTrajectories, type ImportOptions, type ImportResult } from './ingest/import.js';
export { importers, type ImporterId } from './ingest/importers/index.js';
export { initHarness, type InitOptions, type InitReport } from './ingest/init.js';
export { canonicalJson } from './util/canonical-json.js';
export { HsaError, UsageError, UnreadableInputError, RenderError } from './errors.js';
export { defineTransform, type TransformDefinition, type TransformContext, type TransformResult } from './transform/define.js';
export { loadRegistry, PluginError } from './transform/registry.js';
export { renameInState, cloneState } from './transform/state.js';
export type { RewritePlan, ArgOp } from './transform/plan.js';
