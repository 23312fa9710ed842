import { spawn } from 'node:child_process';
import type { Harness, Hook, HookEvent } from '../harness/types.js';
import type { HookFailure } from './hooks.js';

/** Claude Code's event names, which command hooks expect in `hook_event_name`. */
const CLAUDE_EVENT: Record<HookEvent, string> = {
  pre_inference: 'UserPromptSubmit',
  pre_tool_use: 'PreToolUse',
  post_tool_use: 'PostToolUse',
  stop: 'Stop',
};

export interface CommandHookInput {
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: string;
  prompt?: string;
  last_reply?: string;
}

/**
 * Run the command hooks of one event (Claude Code convention): the hook gets a JSON object on
 * stdin; exit 0 passes, exit 2 blocks with stderr as the feedback, any other exit or a timeout is
 * reported through `warn` and does not block. Only called when the user passed --allow-command-hooks.
 */
export async function runCommandHooks(
  h: Harness,
  event: HookEvent,
  input: CommandHookInput,
  opts: { cwd: string; warn: (line: string) => void },
): Promise<HookFailure[]> {
  const out: HookFailure[] = [];
  for (const hook of h.hooks) {
    if (hook.event !== event || !hook.command) continue;
    if (input.tool_name !== undefined && hook.matcher && !hook.matcher.includes(input.tool_name)) continue;
    const r = await runOne(hook, { hook_event_name: CLAUDE_EVENT[event], ...input }, opts.cwd);
    if (r.code === 2) {
      const reason = r.stderr.trim() || `command hook ${hook.id} blocked`;
      out.push({ hook, feedback: reason, reason });
    } else if (r.code !== 0) {
      opts.warn(
        `command hook ${hook.id} ${r.code === null ? `timed out after ${hook.timeout ?? 10}s` : `exited ${r.code}`}: ${r.stderr.trim().split('\n')[0] ?? ''}`,
      );
    }
  }
  return out;
}

function runOne(hook: Hook, payload: unknown, cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', hook.command!], { cwd, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), (hook.timeout ?? 10) * 1000);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, stderr: e.message });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: signal ? null : code, stderr });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(JSON.stringify(payload));
  });
}
