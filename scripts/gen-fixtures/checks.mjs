// The checks every fixture record must pass (independent of the engine's validator).
import { MAX_CHARS, chars } from './common.mjs';
import { SKILL_BODY, ajv, VALIDATE, PRICE_RE, PRICE_TOOLS, WHITELIST_RES, gateFeedback } from './harness.mjs';

// ---------------------------------------------------------------------------------------------
// Checks the fixtures must pass (independent of the engine's validator)
// ---------------------------------------------------------------------------------------------

export function checkRecord(rec) {
  const fail = (msg) => {
    throw new Error(`${rec.id}: ${msg}`);
  };
  const msgs = rec.messages;
  if (msgs[0].role !== 'system') fail('first message is not system');
  let lastUserIdx = -1;
  let toolsSinceUser = new Set();
  let rounds = 0;
  const pending = new Map();
  const seen = new Set();
  for (let i = 1; i < msgs.length; i++) {
    const m = msgs[i];
    if (m.role !== 'tool' && pending.size) fail(`unanswered tool calls before message ${i}`);
    if (m.role === 'user' && !m.name) {
      lastUserIdx = i;
      toolsSinceUser = new Set();
      rounds = 0;
    }
    if (m.role === 'user' && m.name) {
      if (m.name !== 'hook:stop_gate') fail(`unexpected hook message ${m.name}`);
      const prev = msgs[i - 1];
      if (prev.role !== 'assistant' || chars(prev.content) <= MAX_CHARS) fail(`stop_gate feedback at ${i} does not follow an over-long reply`);
      if (m.content !== gateFeedback(prev.content)) fail(`stop_gate feedback at ${i} not rendered from the template`);
    }
    if (m.role === 'assistant') {
      if (typeof m.content !== 'string') fail(`assistant content at ${i} is not a string`);
      if (m.tool_calls) {
        if (m.content !== '') fail(`assistant with tool calls at ${i} has content`);
        rounds++;
        if (rounds > 4) fail(`more than 4 tool rounds in one user turn at ${i}`);
        for (const c of m.tool_calls) {
          if (seen.has(c.id)) fail(`duplicate call id ${c.id}`);
          seen.add(c.id);
          pending.set(c.id, c);
          const v = VALIDATE[c.function.name];
          if (!v) fail(`unknown tool ${c.function.name}`);
          const args = JSON.parse(c.function.arguments);
          if (!v(args)) fail(`${c.function.name} args ${c.function.arguments}: ${ajv.errorsText(v.errors)}`);
          if (c.function.name === 'load_skill' && !SKILL_BODY[args.name]) fail(`unknown skill ${args.name}`);
          toolsSinceUser.add(c.function.name);
          if (c.function.name === 'refuse_request') {
            const u = msgs[lastUserIdx].content;
            if (WHITELIST_RES.some((re) => re.test(u))) fail('refusal of an in-scope comment');
          }
        }
      } else {
        const next = msgs[i + 1];
        const gated = next && next.role === 'user' && next.name === 'hook:stop_gate';
        if (!gated && chars(m.content) > MAX_CHARS) fail(`reply at ${i} is ${chars(m.content)} chars: ${m.content}`);
        if (m.content === '') fail(`empty final reply at ${i}`);
        if (PRICE_RE.test(m.content) && ![...toolsSinceUser].some((t) => PRICE_TOOLS.has(t))) fail(`price without promotion tool at ${i}: ${m.content}`);
      }
    }
    if (m.role === 'tool') {
      const c = pending.get(m.tool_call_id);
      if (!c) fail(`tool message ${i} answers no open call`);
      pending.delete(m.tool_call_id);
      if (c.function.name === 'load_skill' && m.content !== SKILL_BODY[JSON.parse(c.function.arguments).name]) fail(`skill body mismatch at ${i}`);
      if (typeof m.content !== 'string') fail(`tool content at ${i} is not a string`);
    }
  }
  const last = msgs[msgs.length - 1];
  if (last.role !== 'assistant' || last.tool_calls) fail('does not end with a final assistant reply');
}
