import type { HookInput } from './schema.js';
import type { HookEvent, Tool } from './types.js';

/**
 * Claude Code's hooks blocks, read as they are written: a `settings.json` (`{"hooks": {...}, other
 * settings}`), a plugin's `hooks.json` (`{"description"?, "hooks": {...}}`) or the events mapping
 * itself (`{"PreToolUse": [...]}`). Each event maps to a list of matcher groups
 * `{matcher?, hooks: [{type: command|prompt|…, …}]}`. Every hook is mapped to hsa's hook model or
 * refused with a warning naming the event and why; nothing in such a block is passed over without
 * a word. See docs/harness-format.md, "Claude Code hooks".
 */

/** Claude Code's events that hsa's hook model has, and the hsa event each is. */
const MAPPED: Readonly<Record<string, HookEvent>> = {
  PreToolUse: 'pre_tool_use',
  PostToolUse: 'post_tool_use',
  UserPromptSubmit: 'pre_inference',
  Stop: 'stop',
};

/** Claude Code's other events, and why hsa has no counterpart for each. */
const REFUSED: Readonly<Record<string, string>> = {
  SessionStart:
    'it runs once when a Claude Code session starts, resumes, is cleared or compacted, to add context; hsa has no session-start event (its hooks run at pre_inference, pre_tool_use, post_tool_use and stop), and a recorded trajectory already holds whatever context the hook added — put standing text in a prompt section',
  SessionEnd: 'it runs when a session ends (cleanup, logging); nothing it does reaches the model',
  Notification: 'it runs when Claude Code notifies the user (a permission prompt, idle input); nothing it does reaches the model',
  PermissionRequest: 'it answers a permission dialog shown to the user; hsa has no permission step',
  PostToolUseFailure: "it runs only after a tool call failed; hsa's post_tool_use runs after every call, so it would run where Claude Code does not",
  SubagentStart: 'it concerns a subagent; hsa runs one agent per trajectory',
  SubagentStop: 'it concerns a subagent; hsa runs one agent per trajectory',
  PreCompact: 'it runs before context compaction, which hsa never does',
  TeammateIdle: 'it concerns an agent team; hsa runs one agent per trajectory',
  TaskCompleted: 'it runs when a task list item is marked done; hsa has no task list',
  InstructionsLoaded: 'it observes CLAUDE.md and rules files being loaded; hsa loads none',
  ConfigChange: 'it observes configuration changes; a harness state is fixed for a run',
  PermissionDenied: 'it runs when a permission was refused to the user; hsa has no permission step',
  Setup: 'it runs while Claude Code sets a project up; a recorded trajectory starts after that',
  StopFailure: 'it runs when a turn ends on an API error; a recorded trajectory has none',
  CwdChanged: 'it observes the working folder changing; hsa has none',
  FileChanged: 'it observes files changing on disk; hsa has no file system',
  PostCompact: 'it runs after context compaction, which hsa never does',
  TaskCreated: 'it runs when a task list item is created; hsa has no task list',
  Elicitation: 'it answers an MCP server asking the user for input; hsa replays recorded tool results',
  ElicitationResult: 'it observes the answer to an MCP elicitation; hsa replays recorded tool results',
};

/** Hook types other than `command`, and why hsa does not run them. */
const REFUSED_TYPES: Readonly<Record<string, string>> = {
  prompt:
    "it asks a model for a verdict each time it runs; hsa's hooks are declarative checks and commands, so that the same inputs give the same output — write the rule as `checks` in hooks.yaml (forbid, max_chars, require_tool, schema_valid) or as a command hook",
  agent: "it runs an agent with tools for a verdict each time; hsa's hooks are declarative checks and commands, so that the same inputs give the same output",
  http: "it posts each event to a server and reads the verdict back; hsa's hooks are declarative checks and commands, so that the same inputs give the same output",
};

const COMMAND_KEYS = new Set(['type', 'command', 'timeout']);
/** Keys of a command hook that change nothing a trajectory shows (how Claude Code displays or schedules it). */
const DISPLAY_KEYS = new Set(['statusMessage', 'once']);

export type ClaudeIssue = { path: (string | number)[]; message: string; severity: 'error' | 'warning' };

export interface ClaudeHooks {
  /** hsa hooks (for hookSchema), each with where it stands in the file. */
  hooks: { input: HookInput; path: (string | number)[] }[];
  issues: ClaudeIssue[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isEventName = (k: string) => k in MAPPED || k in REFUSED;

/**
 * Where the events mapping of a Claude Code hooks block is, or undefined for a value that is not
 * one (hsa's own `hooks:` list, or something else): `{"hooks": {…}}` (settings.json, a plugin's
 * hooks.json, a harness.yaml's `hooks:` mapping given as the whole block) or a mapping whose keys
 * are Claude Code event names.
 */
export function claudeHooksBlock(value: unknown): { events: Record<string, unknown>; base: (string | number)[]; others: string[] } | undefined {
  if (!isObject(value)) return undefined;
  // A mapping keyed by something else (hsa hooks keyed by their ids) is neither shape: the caller says which shapes are read.
  const eventLike = (k: string) => isEventName(k) || /^[A-Z][A-Za-z]+$/.test(k);
  if (isObject(value.hooks)) {
    const keys = Object.keys(value.hooks);
    return keys.length === 0 || keys.some(eventLike)
      ? { events: value.hooks, base: ['hooks'], others: Object.keys(value).filter((k) => k !== 'hooks') }
      : undefined;
  }
  const keys = Object.keys(value);
  if (keys.length > 0 && keys.every(eventLike) && keys.some(isEventName)) return { events: value, base: [], others: [] };
  return undefined;
}

/**
 * Read a Claude Code events mapping into hsa hooks. `tools` are the harness's tools: a matcher is
 * resolved against them here (Claude Code's rule, see matchTools), so the hook holds the names it
 * applies to and renames follow them.
 */
export function readClaudeHooks(events: Record<string, unknown>, base: (string | number)[], tools: readonly Tool[]): ClaudeHooks {
  const out: ClaudeHooks = { hooks: [], issues: [] };
  const error = (path: (string | number)[], message: string) => out.issues.push({ path, message, severity: 'error' });
  const warn = (path: (string | number)[], message: string) => out.issues.push({ path, message, severity: 'warning' });
  for (const [event, groups] of Object.entries(events)) {
    const at = [...base, event];
    if (!isEventName(event)) {
      error(at, `"${event}" is not a Claude Code hook event (${[...Object.keys(MAPPED), ...Object.keys(REFUSED)].join(', ')})`);
      continue;
    }
    if (!Array.isArray(groups)) {
      error(at, `expected a list of matcher groups ([{matcher: …, hooks: [{type: command, command: …}]}]), not ${kindOf(groups)}`);
      continue;
    }
    const why = REFUSED[event];
    if (why !== undefined) {
      const n = groups.reduce<number>((s, g) => s + (isObject(g) && Array.isArray(g.hooks) ? g.hooks.length : 0), 0);
      warn(at, `${event}: ${n} hook${n === 1 ? '' : 's'} not read: ${why}`);
      continue;
    }
    const hsaEvent = MAPPED[event]!;
    const toolEvent = hsaEvent === 'pre_tool_use' || hsaEvent === 'post_tool_use';
    groups.forEach((group, g) => {
      const gp = [...at, g];
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        error(gp, `expected a matcher group {matcher: …, hooks: [{type: command, command: …}]}, not ${kindOf(group)}`);
        return;
      }
      for (const k of Object.keys(group))
        if (k !== 'matcher' && k !== 'hooks') warn([...gp, k], `${event}: "${k}" is not a key of a Claude Code matcher group (matcher, hooks); not read`);
      const m = group.matcher;
      let matcher: string[] | undefined;
      if (m !== undefined && typeof m !== 'string') {
        error([...gp, 'matcher'], `${event}: a matcher is a string (a tool name, names joined by |, or a regular expression), not ${kindOf(m)}`);
        return;
      }
      if (m !== undefined && m !== '' && m !== '*') {
        if (!toolEvent) warn([...gp, 'matcher'], `${event}: Claude Code applies a matcher to tool events only and ignores it here; so does hsa`);
        else {
          const r = matchTools(m, tools);
          if ('error' in r) {
            error([...gp, 'matcher'], `${event}: matcher "${m}": ${r.error}`);
            return;
          }
          if (r.names.length === 0) {
            warn(
              [...gp, 'matcher'],
              `${event}: matcher "${m}" matches no tool of this harness (${r.how}), so its ${group.hooks.length} hook${group.hooks.length === 1 ? '' : 's'} would never run; not read`,
            );
            return;
          }
          if (r.missing.length > 0)
            warn(
              [...gp, 'matcher'],
              `${event}: matcher "${m}" names ${r.missing.map((x) => `"${x}"`).join(', ')}, not a tool of this harness; the hook applies to ${r.names.join(', ')}`,
            );
          matcher = r.names;
        }
      }
      group.hooks.forEach((hook, h) => {
        const hp = [...gp, 'hooks', h];
        if (!isObject(hook) || typeof hook.type !== 'string') {
          error(hp, `${event}: expected a hook {type: command, command: …}, not ${kindOf(hook)}`);
          return;
        }
        const refused = REFUSED_TYPES[hook.type];
        if (refused !== undefined) {
          warn([...hp, 'type'], `${event}: a ${hook.type} hook is not read: ${refused}`);
          return;
        }
        if (hook.type !== 'command') {
          error([...hp, 'type'], `${event}: "${hook.type}" is not a Claude Code hook type (command, prompt, agent, http)`);
          return;
        }
        if (typeof hook.command !== 'string' || hook.command.trim() === '') {
          error([...hp, 'command'], `${event}: a command hook needs \`command\` (the shell command to run)`);
          return;
        }
        if (hook.timeout !== undefined && !(typeof hook.timeout === 'number' && hook.timeout > 0)) {
          error([...hp, 'timeout'], `${event}: timeout is a number of seconds above 0, not ${JSON.stringify(hook.timeout)}`);
          return;
        }
        if (hook.async === true) {
          warn(
            [...hp, 'async'],
            `${event}: an async command hook is not read: it runs in the background and never blocks, so it cannot change what the model sees`,
          );
          return;
        }
        for (const k of Object.keys(hook)) {
          if (COMMAND_KEYS.has(k) || k === 'async') continue;
          warn(
            [...hp, k],
            DISPLAY_KEYS.has(k)
              ? `${event}: "${k}" changes only how Claude Code shows or schedules the hook; not read`
              : `${event}: "${k}" is not a key of a Claude Code command hook; not read`,
          );
        }
        // Claude Code hooks have no id: the event, group and hook numbers (1-based) name it.
        const input: HookInput = { id: `${event}-${g + 1}-${h + 1}`, event, command: hook.command };
        if (matcher) input.matcher = matcher;
        if (typeof hook.timeout === 'number') input.timeout = hook.timeout;
        out.hooks.push({ input, path: hp });
      });
    });
  }
  return out;
}

/**
 * The harness tools a Claude Code matcher selects. Claude Code reads a matcher of letters, digits,
 * `_` and `|` only as exact, case-sensitive tool names (`Write`, `Edit|Write`) and any other
 * matcher as a regular expression tested against the tool name, unanchored (`Notebook.*`,
 * `mcp__.*__delete.*`); `*` or an empty matcher is every tool (handled by the caller).
 */
export function matchTools(matcher: string, tools: readonly Tool[]): { names: string[]; missing: string[]; how: string } | { error: string } {
  const known = (t: Tool, name: string) => t.name === name || t.sourceName === name;
  if (/^[A-Za-z0-9_|]+$/.test(matcher)) {
    const wanted = matcher.split('|').filter((x) => x !== '');
    const names = tools.filter((t) => wanted.some((w) => known(t, w))).map((t) => t.name);
    return { names, missing: wanted.filter((w) => !tools.some((t) => known(t, w))), how: 'exact names' };
  }
  let re: RegExp;
  try {
    re = new RegExp(matcher);
  } catch (e) {
    return { error: `not a valid regular expression (${(e as Error).message})` };
  }
  return { names: tools.filter((t) => re.test(t.name) || re.test(t.sourceName)).map((t) => t.name), missing: [], how: 'a regular expression' };
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return `${typeof v === 'string' ? 'the text' : `the ${typeof v}`} ${JSON.stringify(v)}`;
}

/** What a `hooks:` block can be, for errors about one of another shape. */
export const HOOKS_SHAPES =
  "a list of hsa hooks (`- id: …, event: stop, checks: […]`) or a Claude Code hooks mapping (`PreToolUse: [{matcher: Write|Edit, hooks: [{type: command, command: …}]}]`, as in settings.json or a plugin's hooks.json)";

/** `kindOf`, for the loader's messages. */
export const describeKind = kindOf;
