import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateRecord } from '../src/migrate/apply.js';
import { compilePlan } from '../src/migrate/compile.js';
import { inferPlan } from '../src/migrate/infer.js';
import { parsePlan, planToYaml } from '../src/migrate/plan-file.js';
import type { Trajectory } from '../src/trajectory/types.js';
import { makeTmp } from './helpers/tmp.js';
import { load, matches } from './helpers/migrate.js';

let tmp: { dir: string; cleanup: () => Promise<void> };
beforeAll(async () => {
  tmp = await makeTmp('hsa-migrate-');
});
afterAll(async () => tmp.cleanup());

describe('docstring-derived schemas (as a benchmark rewrite makes them)', () => {
  // The shape tau2-bench's tools take (sierra-research/tau2-bench a2c02472, src/tau2/environment/tool.py:113,147:
  // pydantic create_model(...).model_json_schema(): a `title` per property, `$defs` with `$ref`),
  // against hand-written schemas like tau-bench's (sierra-research/tau-bench 59a200c6,
  // tau_bench/envs/airline/tools/send_certificate.py: `amount` a number, there an integer).
  const pair = async () => {
    const dir = path.join(tmp.dir, 'docstring');
    const { writeTree } = await import('./helpers/tmp.js');
    await writeTree(dir, {
      'a.yaml': `name: desk\nversion: "1"\nprompt:\n  sections:\n    - id: policy\n      text: Send certificates with \`send_certificate\`.\ntools:\n  items:\n    - type: function\n      function:\n        name: send_certificate\n        description: Send a certificate to a user. Be careful!\n        parameters:\n          type: object\n          properties:\n            user_id: { type: string, description: "The ID of the user." }\n            amount: { type: number, description: "Certificate amount to send." }\n            reason: { type: object, properties: { code: { type: string } } }\n          required: [user_id, amount]\n`,
      'b.yaml': `name: desk\nversion: "2"\nprompt:\n  sections:\n    - id: policy\n      text: "# Policy\\n\\nSend certificates with \`send_certificate\`."\ntools:\n  items:\n    - type: function\n      function:\n        name: send_certificate\n        description: |-\n          Send a certificate to a user. Be careful!\n\n          Returns a confirmation.\n        parameters:\n          $defs:\n            Reason: { title: Reason, type: object, properties: { code: { title: Code, type: string } } }\n          title: parameters\n          type: object\n          properties:\n            user_id: { title: User Id, type: string, description: "The ID of the user." }\n            amount: { title: Amount, type: integer, description: "The amount of the certificate to send." }\n            reason: { $ref: "#/$defs/Reason" }\n          required: [user_id, amount]\n`,
    });
    return [await load(path.join(dir, 'a.yaml')), await load(path.join(dir, 'b.yaml'))] as const;
  };

  it("number → integer stays the same parameter; a value B's type refuses is stopped by the check under B", async () => {
    const [a, b] = await pair();
    const plan = inferPlan(a, b);
    expect(matches(plan).tools).toEqual([
      { from: 'send_certificate', to: 'send_certificate', params: { user_id: 'user_id', amount: 'amount', reason: 'reason' }, values: {}, fill: {}, needs: [] },
    ]);
    const cp = compilePlan(plan, a, b);
    const rec = (amount: number): Trajectory => ({
      id: `r-${amount}`,
      messages: [
        { role: 'system', content: 'Send certificates with `send_certificate`.' },
        { role: 'user', content: 'send one' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'send_certificate', arguments: JSON.stringify({ user_id: 'u1', amount, reason: { code: 'late' } }) },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'ok' },
      ],
    });
    const whole = migrateRecord(rec(100), cp, a, b, { file: 'x', line: 1 });
    expect(whole.ok).toBe(true);
    if (whole.ok) expect(whole.record.messages[0]!.content).toBe('# Policy\n\nSend certificates with `send_certificate`.');
    const frac = migrateRecord(rec(12.5), cp, a, b, { file: 'x', line: 2 });
    expect(frac.ok ? null : frac.reject.kind).toBe('check_invalid_call');
  });
});

describe('tools merged into one (as an MCP server consolidates them)', () => {
  // The shape of github/github-mcp-server's "Issues consolidation" (3ba8d4a1, pkg/github/__toolsnaps__/):
  // get_issue, get_issue_comments, list_sub_issues became issue_read with a required `method` enum;
  // add_sub_issue and remove_sub_issue became sub_issue_write, whose `method` lists its options only
  // in its description; update_issue became issue_write. Descriptions here are our own.
  const pair = async () => {
    const dir = path.join(tmp.dir, 'merge');
    const { writeTree } = await import('./helpers/tmp.js');
    const tool = (name: string, description: string, properties: Record<string, unknown>, required: string[]) => ({
      name,
      description,
      inputSchema: { type: 'object', properties, required },
    });
    const repo = { owner: { type: 'string', description: 'Repository owner' }, repo: { type: 'string', description: 'Repository name' } };
    const issue = { issue_number: { type: 'number', description: 'The issue number' } };
    const v1 = [
      tool('get_issue', 'Read one issue of a repository.', { ...repo, ...issue }, ['owner', 'repo', 'issue_number']),
      tool('get_issue_comments', 'Read the comments of an issue.', { ...repo, ...issue, page: { type: 'number' } }, ['owner', 'repo', 'issue_number']),
      tool('list_sub_issues', 'List the sub-issues of an issue.', { ...repo, ...issue, per_page: { type: 'number', description: 'Results per page' } }, [
        'owner',
        'repo',
        'issue_number',
      ]),
      tool('add_sub_issue', 'Attach a sub-issue to an issue.', { ...repo, ...issue, sub_issue_id: { type: 'number' } }, [
        'owner',
        'repo',
        'issue_number',
        'sub_issue_id',
      ]),
      tool('remove_sub_issue', 'Detach a sub-issue from an issue.', { ...repo, ...issue, sub_issue_id: { type: 'number' } }, [
        'owner',
        'repo',
        'issue_number',
        'sub_issue_id',
      ]),
      tool('update_issue', 'Change the title, body or state of an issue.', { ...repo, ...issue, state: { type: 'string', enum: ['open', 'closed'] } }, [
        'owner',
        'repo',
        'issue_number',
      ]),
      tool('create_issue', 'Open a new issue.', { ...repo, title: { type: 'string' } }, ['owner', 'repo', 'title']),
    ];
    const v2 = [
      tool(
        'issue_read',
        'Read an issue of a repository.',
        {
          method: { type: 'string', enum: ['get', 'get_comments', 'get_sub_issues', 'get_labels'], description: 'What to read.' },
          ...repo,
          ...issue,
          page: { type: 'number' },
          perPage: { type: 'number', description: 'Results per page' },
        },
        ['method', 'owner', 'repo', 'issue_number'],
      ),
      tool(
        'sub_issue_write',
        'Change the sub-issues of an issue.',
        {
          method: {
            type: 'string',
            description: "The change to make:\n- 'add' - attach a sub-issue.\n- 'remove' - detach a sub-issue.\n- 'reprioritize' - move a sub-issue.",
          },
          ...repo,
          ...issue,
          sub_issue_id: { type: 'number' },
        },
        ['method', 'owner', 'repo', 'issue_number', 'sub_issue_id'],
      ),
      tool(
        'issue_write',
        'Create or change an issue.',
        { method: { type: 'string', enum: ['create', 'update'] }, ...repo, ...issue, state: { type: 'string', enum: ['open', 'closed'] } },
        ['method', 'owner', 'repo'],
      ),
      // B's own text still names a tool of A: B's business, not the migration's.
      tool('create_issue', 'Open a new issue (close one with update_issue).', { ...repo, title: { type: 'string' } }, ['owner', 'repo', 'title']),
    ];
    const yaml = (v: string, tools: unknown[]) =>
      `name: gh\nversion: "${v}"\nprompt:\n  sections:\n    - id: role\n      text: You work on GitHub issues.\ntools:\n  items: ${JSON.stringify(tools)}\n`;
    await writeTree(dir, { 'a.yaml': yaml('1', v1), 'b.yaml': yaml('2', v2) });
    return [await load(path.join(dir, 'a.yaml')), await load(path.join(dir, 'b.yaml'))] as const;
  };

  it('infers each merged tool with the value of the new mode parameter it fills, and carries its calls both ways', async () => {
    const [a, b] = await pair();
    const plan = inferPlan(a, b);
    const fills = Object.fromEntries(plan.tools.map((t) => [t.from, t.map ? [t.map.to, t.map.fill, t.map.needs] : null]));
    expect(fills).toEqual({
      get_issue: ['issue_read', { method: 'get' }, []],
      get_issue_comments: ['issue_read', { method: 'get_comments' }, []],
      list_sub_issues: ['issue_read', { method: 'get_sub_issues' }, []],
      add_sub_issue: ['sub_issue_write', { method: 'add' }, []],
      remove_sub_issue: ['sub_issue_write', { method: 'remove' }, []],
      update_issue: ['issue_write', { method: 'update' }, []],
      create_issue: ['create_issue', {}, []],
    });
    expect(plan.tools.find((t) => t.from === 'list_sub_issues')!.map!.params).toMatchObject({ per_page: 'perPage' });
    const cp = compilePlan(parsePlan('plan.yaml', planToYaml(plan), a, b), a, b);
    const call = (id: string, name: string, args: object) => ({
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id, type: 'function' as const, function: { name, arguments: JSON.stringify(args) } }],
    });
    const rec: Trajectory = {
      id: 'm1',
      messages: [
        { role: 'system', content: 'You work on GitHub issues.' },
        { role: 'user', content: 'read 12, list its sub-issues, detach 400, close it' },
        call('c1', 'get_issue', { owner: 'acme', repo: 'rocket', issue_number: 12 }),
        { role: 'tool', tool_call_id: 'c1', content: '{"title":"leak"}' },
        call('c2', 'list_sub_issues', { owner: 'acme', repo: 'rocket', issue_number: 12, per_page: 5 }),
        { role: 'tool', tool_call_id: 'c2', content: '[400]' },
        call('c3', 'remove_sub_issue', { owner: 'acme', repo: 'rocket', issue_number: 12, sub_issue_id: 400 }),
        { role: 'tool', tool_call_id: 'c3', content: 'ok' },
        call('c4', 'update_issue', { owner: 'acme', repo: 'rocket', issue_number: 12, state: 'closed' }),
        { role: 'tool', tool_call_id: 'c4', content: 'ok' },
        { role: 'assistant', content: 'Done.' },
      ],
    };
    const r = migrateRecord(rec, cp, a, b, { file: 'x', line: 1 });
    if (!r.ok) throw new Error(r.reject.reason);
    const calls = r.record.messages.flatMap((m) =>
      m.role === 'assistant' ? (m.tool_calls ?? []).map((c) => [c.function.name, JSON.parse(c.function.arguments)]) : [],
    );
    expect(calls).toEqual([
      ['issue_read', { owner: 'acme', repo: 'rocket', issue_number: 12, method: 'get' }],
      ['issue_read', { owner: 'acme', repo: 'rocket', issue_number: 12, perPage: 5, method: 'get_sub_issues' }],
      ['sub_issue_write', { owner: 'acme', repo: 'rocket', issue_number: 12, sub_issue_id: 400, method: 'remove' }],
      ['issue_write', { owner: 'acme', repo: 'rocket', issue_number: 12, state: 'closed', method: 'update' }],
    ]);
    // Two A tools mapped to one B tool with the same value could not be told apart on the way back.
    const clash = planToYaml(plan).replace('method: get_comments', 'method: get');
    expect(() => parsePlan('plan.yaml', clash, a, b)).toThrow(
      /tool "issue_read" is the target of .*: merged tools must each fill one parameter with a value of its own/,
    );
  });
});
