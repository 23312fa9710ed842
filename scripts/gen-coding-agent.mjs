// The coding-agent fixture's trajectories (fixtures/coding-agent, written for this project): logs of
// a SWE-agent-style agent, whose first user turn is the task message — the issue text, then the
// harness's tool instructions (prompt/instructions.md, declared in prompt.user_sections), then a
// shell prompt — as SWE-agent's instance_template lays it out (SWE-agent/SWE-agent@3ea751c,
// config/sweagent_0_7/07.yaml:32-60). The issue text is the user's: it may name a tool, and stays as written.
// Run: node scripts/gen-coding-agent.mjs (after npm run build).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
const D = 'fixtures/coding-agent';
const sys = execFileSync(process.execPath, ['bin/hsa', 'inspect', `${D}/harness`, '--render'], { encoding: 'utf8' });
const instructions = readFileSync(`${D}/harness/prompt/instructions.md`, 'utf8').trim();
const task = (issue, cwd) =>
  `We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\n${issue}\n\n${instructions}\n\n(Open file: n/a)\n(Current directory: ${cwd})\nbash-$`;
const tc = (id, name, args) => ({ id, type: 'function', function: { name, arguments: JSON.stringify(args) } });
const res = (id, text) => ({ role: 'tool', tool_call_id: id, content: text });
const recs = [
  {
    id: 'ca-1',
    meta: { intent: 'bugfix', lang: 'en' },
    messages: [
      { role: 'system', content: sys },
      {
        role: 'user',
        content: task(
          '`parse_date("2026-02-30")` returns March 2 instead of raising ValueError. Our old bot used find_file to locate dates.py; see utils/dates.py.',
          '/repo',
        ),
      },
      { role: 'assistant', content: 'First I find the file.', tool_calls: [tc('c1', 'find_file', { file_name: 'dates.py' })] },
      res('c1', 'Found 1 matches for "dates.py" in /repo:\n/repo/utils/dates.py'),
      { role: 'assistant', content: '', tool_calls: [tc('c2', 'open_file', { path: 'utils/dates.py', line_number: 40 })] },
      res(
        'c2',
        '[File: /repo/utils/dates.py (120 lines total)]\n40:def parse_date(text):\n41:    y, m, d = map(int, text.split("-"))\n42:    return date(y, 1, 1) + timedelta(days=...)',
      ),
      {
        role: 'assistant',
        content: 'The function adds days instead of building the date. I will replace lines 41-42 with `edit_lines`.',
        tool_calls: [
          tc('c3', 'edit_lines', { start_line: 41, end_line: 42, replacement: '    y, m, d = map(int, text.split("-"))\n    return date(y, m, d)' }),
        ],
      },
      res('c3', 'File updated.'),
      { role: 'assistant', content: '', tool_calls: [tc('c4', 'submit', {})] },
      res('c4', 'Submitted.'),
      { role: 'assistant', content: 'Submitted: parse_date now raises for invalid days.' },
    ],
  },
  {
    id: 'ca-2',
    meta: { intent: 'navigate', lang: 'en' },
    messages: [
      { role: 'system', content: sys },
      {
        role: 'user',
        content: task('The retry limit in `http/client.py` is read from RETRY_MAX but the docs say HTTP_RETRIES. Where is it read?', '/srv/app'),
      },
      { role: 'assistant', content: '', tool_calls: [tc('c1', 'search_dir', { search_term: 'RETRY_MAX', dir: 'http' })] },
      res('c1', 'Found 2 matches for "RETRY_MAX" in /srv/app/http:\n/srv/app/http/client.py (2 matches)'),
      { role: 'assistant', content: '', tool_calls: [tc('c2', 'open_file', { path: 'http/client.py' })] },
      res('c2', '[File: /srv/app/http/client.py (610 lines total)]\n1:import os'),
      {
        role: 'assistant',
        content: 'The setting is near the end; I use goto_line rather than scroll_down.',
        tool_calls: [tc('c3', 'goto_line', { line_number: 583 })],
      },
      res('c3', '583:    retries = int(os.environ.get("RETRY_MAX", 3))'),
      { role: 'assistant', content: 'It is read at http/client.py line 583 from RETRY_MAX.' },
    ],
  },
  {
    id: 'ca-3',
    meta: { intent: 'navigate', lang: 'en' },
    messages: [
      { role: 'system', content: sys },
      { role: 'user', content: task('Tests in tests/test_cli.py fail on Windows paths.', '/repo') },
      { role: 'assistant', content: '', tool_calls: [tc('c1', 'find_file', { file_name: 'test_cli.py', dir: 'tests' })] },
      res('c1', 'Found 1 matches for "test_cli.py" in /repo/tests:\n/repo/tests/test_cli.py'),
      { role: 'assistant', content: '', tool_calls: [tc('c2', 'open_file', { path: 'tests/test_cli.py' })] },
      res('c2', '[File: /repo/tests/test_cli.py (300 lines total)]'),
      { role: 'assistant', content: '', tool_calls: [tc('c3', 'scroll_down', {})] },
      res('c3', '101:def test_paths():'),
      { role: 'assistant', content: 'The test builds paths with "/" literals; that is the Windows failure.' },
    ],
  },
];
writeFileSync(`${D}/trajectories.jsonl`, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
