import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadHarness, type LoadResult } from '../src/harness/load.js';
import { formatProblem } from '../src/problems.js';
import { REPO } from './helpers/hsa.js';
import { makeTmp, openAiTool, writeTree } from './helpers/tmp.js';

// Claude Code hooks as Claude Code users write them. The format, from Anthropic's own sources
// (anthropics/claude-code@5cfc0a1905ce0c0a9bd81d8a90fe6b62ff614357):
// - plugins/plugin-dev/skills/hook-development/SKILL.md:20-52 (hook types `prompt` and `command`),
//   :62-119 (a plugin's hooks.json wraps the events in {"description"?, "hooks": {...}}; settings
//   put the events mapping under `hooks`), :121-276 (the events, SessionStart among them),
//   :385-409 (matchers: an exact name, `Read|Write|Edit` lists, `*` for all, regular expressions
//   such as `mcp__.*__delete.*`; case-sensitive);
// - plugins/explanatory-output-style/hooks/hooks.json:1-15 (a SessionStart command hook without a
//   matcher), plugins/hookify/hooks/hooks.json:1-50 (command hooks with `timeout`).
// Claude Code reads a matcher of only letters, digits, `_` and `|` as exact names and any other as
// an unanchored JavaScript regular expression (docs.claude.com/docs/claude-code/hooks, "Structure";
// the event list and matcher syntax as mirrored at brewpirate.github.io/claude-code-docs/hooks/matcher-semantics/).

const dirs: { cleanup: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const d of dirs) await d.cleanup();
});

const TOOLS = ['read_file', 'edit_file', 'write_file', 'mcp__tickets__create_ticket', 'mcp__tickets__close_ticket'];

async function harness(files: Record<string, string>, harnessYaml = 'name: h\nversion: "1"\n'): Promise<{ dir: string; r: LoadResult }> {
  const tmp = await makeTmp('hsa-cc-hooks-');
  dirs.push(tmp);
  await writeTree(tmp.dir, {
    'harness.yaml': harnessYaml,
    'tools/tools.json': JSON.stringify(TOOLS.map((n) => openAiTool(n, { path: { type: 'string' } }))),
    ...files,
  });
  return { dir: tmp.dir, r: await loadHarness(tmp.dir) };
}
const lines = (r: LoadResult, severity: 'error' | 'warning') => r.problems.filter((p) => p.severity === severity).map(formatProblem);
const hooksOf = (r: LoadResult) =>
  r.harness!.hooks.map((h) => ({
    id: h.id,
    event: h.event,
    ...(h.matcher ? { matcher: h.matcher } : {}),
    command: h.command,
    ...(h.timeout ? { timeout: h.timeout } : {}),
  }));

describe('Claude Code hooks files', () => {
  it('reads the docs-desk fixture: command hooks mapped (| lists and regex matchers resolved to tool names), SessionStart and the prompt hook refused by name and why', async () => {
    const r = await loadHarness(path.join(REPO, 'fixtures/docs-desk/harness'));
    expect(lines(r, 'error')).toEqual([]);
    expect(hooksOf(r)).toEqual([
      { id: 'UserPromptSubmit-1-1', event: 'pre_inference', command: './hooks/no-secrets.sh', timeout: 5 },
      { id: 'PreToolUse-1-1', event: 'pre_tool_use', matcher: ['edit_file', 'write_file'], command: './hooks/docs-only.sh', timeout: 10 },
      { id: 'PreToolUse-2-1', event: 'pre_tool_use', matcher: ['mcp__tickets__close_ticket'], command: "echo 'a person closes tickets' >&2; exit 2" },
      { id: 'PostToolUse-1-1', event: 'post_tool_use', matcher: ['run_doc_tests'], command: './hooks/log-failures.sh' },
    ]);
    const warnings = lines(r, 'warning');
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /hooks\.json:4: hooks\.SessionStart: warning: SessionStart: 1 hook not read: it runs once when a Claude Code session starts.*hsa has no session-start event/,
    );
    expect(warnings[1]).toMatch(/hooks\.json:\d+: hooks\.Stop\.0\.hooks\.0\.type: warning: Stop: a prompt hook is not read: it asks a model for a verdict/);
    // The file is one of the harness's files (for the manifest's input hashes).
    expect(r.files.map((f) => f.file)).toContain('hooks.json');
  });

  it('reads .claude/settings.json (other settings named, not read) and the bare events mapping', async () => {
    const settings = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PreToolUse: [
          { matcher: 'Write', hooks: [{ type: 'command', command: 'true' }] },
          { matcher: 'write_file', hooks: [{ type: 'command', command: 'guard' }] },
        ],
      },
    };
    const a = await harness({ '.claude/settings.json': JSON.stringify(settings, null, 2) });
    expect(lines(a.r, 'error')).toEqual([]);
    expect(hooksOf(a.r)).toEqual([{ id: 'PreToolUse-2-1', event: 'pre_tool_use', matcher: ['write_file'], command: 'guard' }]);
    const w = lines(a.r, 'warning');
    expect(w.some((l) => /settings\.json:2: permissions: warning: Claude Code settings other than hooks are not read: permissions/.test(l))).toBe(true);
    // `Write` is Claude Code's tool, not this harness's: the group is refused, saying so.
    expect(
      w.some((l) =>
        /hooks\.PreToolUse\.0\.matcher: warning: PreToolUse: matcher "Write" matches no tool of this harness \(exact names\), so its 1 hook would never run/.test(
          l,
        ),
      ),
    ).toBe(true);
    const b = await harness({ 'hooks.json': JSON.stringify({ Stop: [{ hooks: [{ type: 'command', command: './stop.sh' }] }] }) });
    expect(lines(b.r, 'error')).toEqual([]);
    expect(hooksOf(b.r)).toEqual([{ id: 'Stop-1-1', event: 'stop', command: './stop.sh' }]);
  });

  it('reads a Claude Code mapping under `hooks:` in harness.yaml, and a | list naming a tool the harness lacks applies to the rest with a warning', async () => {
    const yaml =
      'name: h\nversion: "1"\nhooks:\n  PreToolUse:\n    - matcher: "Write|edit_file"\n      hooks:\n        - type: command\n          command: ./guard.sh\n';
    const { r } = await harness({}, yaml);
    expect(lines(r, 'error')).toEqual([]);
    expect(hooksOf(r)).toEqual([{ id: 'PreToolUse-1-1', event: 'pre_tool_use', matcher: ['edit_file'], command: './guard.sh' }]);
    expect(lines(r, 'warning')).toEqual([
      expect.stringMatching(
        /harness\.yaml:5: hooks\.PreToolUse\.0\.matcher: warning: PreToolUse: matcher "Write\|edit_file" names "Write", not a tool of this harness; the hook applies to edit_file/,
      ),
    ]);
  });

  it('refuses what it cannot read with errors naming the event: an unknown event, a bad regex, an unknown type, a missing command', async () => {
    const { r } = await harness({
      'hooks.json': JSON.stringify(
        {
          hooks: {
            PreToolUSe: [{ hooks: [{ type: 'command', command: 'x' }] }],
            PreToolUse: [{ matcher: 'mcp__(', hooks: [{ type: 'command', command: 'x' }] }, { hooks: [{ type: 'script', command: 'x' }, { type: 'command' }] }],
            Stop: { hooks: [] },
          },
        },
        null,
        2,
      ),
    });
    const errors = lines(r, 'error');
    expect(errors).toHaveLength(5);
    expect(errors.join('\n')).toContain(
      'hooks.PreToolUSe: "PreToolUSe" is not a Claude Code hook event (PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart',
    );
    expect(errors.join('\n')).toMatch(/hooks\.PreToolUse\.0\.matcher: PreToolUse: matcher "mcp__\(": not a valid regular expression/);
    expect(errors.join('\n')).toContain('hooks.PreToolUse.1.hooks.0.type: PreToolUse: "script" is not a Claude Code hook type (command, prompt, agent, http)');
    expect(errors.join('\n')).toContain('hooks.PreToolUse.1.hooks.1.command: PreToolUse: a command hook needs `command`');
    expect(errors.join('\n')).toContain('hooks.Stop: expected a list of matcher groups');
  });

  it('never ignores a hooks file silently: one present beside the file harness.yaml names is reported as not read', async () => {
    const { r } = await harness(
      {
        'hooks.yaml': 'hooks:\n  - id: short\n    event: stop\n    checks: [{ max_chars: 80 }]\n',
        'hooks.json': JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] } }),
      },
      'name: h\nversion: "1"\nhooks: hooks.yaml\n',
    );
    expect(lines(r, 'error')).toEqual([]);
    expect(r.harness!.hooks.map((h) => h.id)).toEqual(['short']);
    expect(lines(r, 'warning')).toEqual([
      expect.stringMatching(/harness\.yaml:3: hooks: warning: hooks\.json in the harness folder is not read: `hooks:` names hooks\.yaml/),
    ]);
    // Without a `hooks:` key every hooks file of the folder is read, hsa's first.
    const both = await harness({
      'hooks.yaml': 'hooks:\n  - id: short\n    event: stop\n    checks: [{ max_chars: 80 }]\n',
      'hooks.json': JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] } }),
    });
    expect(lines(both.r, 'error')).toEqual([]);
    expect(both.r.harness!.hooks.map((h) => h.id)).toEqual(['short', 'Stop-1-1']);
  });

  it('a `hooks:` key of the wrong shape says which shapes are read', async () => {
    const inHarness = await harness({}, 'name: h\nversion: "1"\nhooks: 5\n');
    expect(lines(inHarness.r, 'error')).toEqual([
      expect.stringMatching(
        /harness\.yaml:3: hooks: expected a hooks file name, a list of hsa hooks \(- id: …, event: stop, checks: \[…\]\) or a Claude Code hooks mapping \(PreToolUse: \[\{matcher: Write\|Edit, hooks: \[\{type: command, command: …\}\]\}\]\)/,
      ),
    ]);
    const inFile = await harness({ 'hooks.yaml': 'hooks: stop_gate\n' });
    expect(lines(inFile.r, 'error')).toEqual([
      expect.stringMatching(
        /hooks\.yaml:1: hooks: expected `hooks:` to hold a list of hsa hooks .* or a Claude Code hooks mapping .*; found the text "stop_gate"$/,
      ),
    ]);
    // hsa hooks keyed by their ids (a mapping, not a list): neither shape, and the error says so.
    const keyed = await harness({ 'hooks.yaml': 'hooks:\n  stop_gate:\n    event: stop\n    checks: [{ max_chars: 80 }]\n' });
    expect(lines(keyed.r, 'error')).toEqual([
      expect.stringMatching(/hooks\.yaml:1: hooks: expected `hooks:` to hold a list of hsa hooks .*; found a mapping$/),
    ]);
    const mapping = await harness({}, 'name: h\nversion: "1"\nhooks:\n  stop_gate: { max_chars: 80 }\n');
    expect(lines(mapping.r, 'error')).toEqual([
      expect.stringMatching(/harness\.yaml:3: hooks: expected a file name, a list of hsa hooks .*; found a mapping of stop_gate$/),
    ]);
  });
});
