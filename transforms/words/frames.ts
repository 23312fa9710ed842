/** Sentence frames for rewording descriptions; `{text}` is the original, `{lower}` it with a lower-case first letter. */
export const descriptionFrames: string[] = [
  '{text}',
  'Use this to {lower}',
  'Purpose: {text}',
  '{text} Call it only when it is needed.',
  'When needed: {lower}',
  'This one is for the following. {text}',
  'Summary — {text}',
];

/** Hook feedback formats; `{tag}` is the hook id, `{reason}` the feedback text without its leading tag. */
export const feedbackFrames: string[] = [
  '[{tag}] {reason}',
  '<{tag}>{reason}</{tag}>',
  '{tag}: {reason}',
  'Check "{tag}" failed. {reason}',
  '{"hook":"{tag}","message":"{reason}"}',
  '({tag}) {reason}',
];

export const prefixes: string[] = ['live', 'shop', 'my', 'app', 'svc', 'x', 'ai', 'host', 'zhibo'];
export const suffixes: string[] = ['tool', 'fn', 'api', 'v2', 'op', 'call', 'action', 'task'];
export const servers: string[] = ['shop', 'marketing', 'catalog', 'commerce', 'live', 'crm', 'support', 'ops'];
