// Records: building one, checking it, and writing the input file once per parameters.
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readSync, renameSync, statSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { SELF_HASH, DEFAULT_SEED, HARNESS_REF, MIN_RECORD, MAX_RECORD, MIN_TOOL, MAX_TOOL, makeRng, ALNUM, bytes, chars } from './common.mjs';
import { INTENTS, INTENT_NAMES, STOP_FEEDBACK, harnessFiles, readParams } from './harness.mjs';
import { toolResult, toolArgs, USER_MSG, REPLY, LONG_TAIL, makeContext, fill } from './turns.mjs';

export function makeRecord(g, id, h, renderSystemPrompt, target) {
  const { ctx, items } = makeContext(g);
  const lang = g.pick(['zh', 'zh', 'en', 'en', 'mixed']);
  const system = renderSystemPrompt(h, ctx);
  const messages = [{ role: 'system', content: system }];
  const nTurns = g.int(2, 4);
  const intents = [];
  for (let t = 0; t < nTurns; t++) intents.push(t === 0 && g.chance(0.25) ? 'greet' : g.pick(INTENT_NAMES.filter((x) => x !== 'greet')));
  let size = bytes(JSON.stringify({ id, harness: HARNESS_REF, context: ctx, meta: { intent: intents[0], lang, source: 'bench' }, messages }));
  let callN = 0;
  const callId = () => {
    let s = 'call_';
    for (let i = 0; i < 24; i++) s += ALNUM[Math.floor(g.next() * ALNUM.length)];
    return `${s}${(callN++).toString(36)}`;
  };
  const push = (m) => {
    messages.push(m);
    size += bytes(JSON.stringify(m)) + 1;
  };
  for (let t = 0; t < nTurns; t++) {
    const intent = intents[t];
    const spec = INTENTS[intent];
    const turnLang = lang === 'mixed' ? g.pick(['zh', 'en']) : lang;
    const it = g.pick(items);
    const vars = { item: turnLang === 'zh' ? it._zh : it._en, host: ctx.host?.name ?? 'Mia', price: 0 };
    push({ role: 'user', content: fill(g.pick(USER_MSG[intent][turnLang]), vars) });
    const budget = (target - size) / (nTurns - t) - 200; // this turn's share, less the reply
    const turnStart = size;
    // round 1: load the skill
    const sid = callId();
    push({
      role: 'assistant',
      content: '',
      tool_calls: [{ id: sid, type: 'function', function: { name: 'load_skill', arguments: JSON.stringify({ name: spec.skill }) } }],
    });
    push({ role: 'tool', tool_call_id: sid, content: h.skills.find((s) => s.id === spec.skill).body });
    // domain rounds: the intent's chain, then extra calls from its pool while the budget lasts
    const rounds = spec.chain.map((r) => r.slice());
    let finalPrice = null;
    for (let r = 0; r < 6; r++) {
      let names = rounds[r];
      const left = budget - (size - turnStart);
      if (!names) {
        if (spec.pool.length === 0 || left < MIN_TOOL + 250) break;
        names = [g.pick(spec.pool)];
        if (left > 2 * (MAX_TOOL + 250) && g.chance(0.4)) names.push(g.pick(spec.pool));
      }
      const calls = names.map((name) => ({ id: callId(), type: 'function', function: { name, arguments: '' }, _args: toolArgs(g, name, ctx) }));
      for (const c of calls) c.function.arguments = JSON.stringify(c._args);
      push({ role: 'assistant', content: '', tool_calls: calls.map(({ _args, ...c }) => c) });
      for (const c of calls) {
        const remaining = budget - (size - turnStart) - 120;
        const want = Math.min(g.int(MIN_TOOL, MAX_TOOL), Math.max(MIN_TOOL, remaining));
        const content = toolResult(g, c.function.name, c._args, ctx, want);
        if (c.function.name === 'calculate_optimal_promotion') finalPrice = JSON.parse(content).final_price;
        push({ role: 'tool', tool_call_id: c.id, content });
      }
    }
    vars.price = finalPrice ?? it.list_price;
    let reply = fill(g.pick(REPLY[intent][turnLang]), vars);
    if (intent === 'discount' && finalPrice === null) reply = turnLang === 'zh' ? '活动价以购物车显示为准哦。' : 'The deal price shows in your cart.';
    if (g.chance(0.15)) {
      const long = reply + LONG_TAIL[turnLang];
      push({ role: 'assistant', content: long });
      push({ role: 'user', name: 'hook:stop_gate', content: STOP_FEEDBACK(chars(long)) });
    }
    push({ role: 'assistant', content: reply });
  }
  return { id, harness: HARNESS_REF, context: ctx, meta: { intent: intents[0], intents, lang, source: 'bench' }, messages };
}

/** Check a record the way hsa will: calls valid and answered, skill bodies, sizes. Throws on failure. */
export function checkRecord(rec, line, validators) {
  const fail = (msg) => {
    throw new Error(`bench-gen: record ${rec.id} (line ${line}): ${msg}`);
  };
  const open = new Set();
  for (const m of rec.messages) {
    if (m.role === 'assistant') {
      if (open.size) fail('unanswered tool call');
      for (const c of m.tool_calls ?? []) {
        const v = validators.get(c.function.name);
        if (!v) fail(`unknown tool ${c.function.name}`);
        if (!v(JSON.parse(c.function.arguments))) fail(`${c.function.name} arguments invalid: ${JSON.stringify(v.errors)}`);
        open.add(c.id);
      }
    } else if (m.role === 'tool') {
      if (!open.delete(m.tool_call_id)) fail(`tool message answers no open call`);
      const b = bytes(m.content);
      if (b < MIN_TOOL || b > MAX_TOOL) fail(`tool content is ${b} bytes`);
    } else if (open.size) fail('unanswered tool call');
  }
  if (open.size) fail('unanswered tool call at the end');
}

export function paramsFileOf(file) {
  return file.replace(/\.jsonl$/, '') + '.params.json';
}

/**
 * Write `file` (JSONL) with records until it holds at least `targetBytes`, unless it exists with
 * the same parameters. Returns { generated, records, bytes, seconds }.
 */
export async function ensureInput(file, harnessDir, { targetBytes, seed = DEFAULT_SEED, force = false, log = () => {} } = {}) {
  const { loadHarness, renderSystemPrompt } = await import('../../dist/src/index.js');
  const { harness: h, problems } = await loadHarness(harnessDir);
  const errors = (problems ?? []).filter((p) => p.severity === 'error');
  if (!h || errors.length) throw new Error(`bench-gen: harness ${harnessDir} does not load: ${JSON.stringify(errors.slice(0, 3))}`);
  const harnessHash = createHash('sha256');
  const files = harnessFiles(seed);
  for (const k of Object.keys(files).sort()) harnessHash.update(k).update('\0').update(files[k]).update('\0');
  const params = { generator: SELF_HASH, seed, target_bytes: targetBytes, harness: harnessHash.digest('hex').slice(0, 16) };
  const pfile = paramsFileOf(file);
  const old = readParams(pfile);
  if (
    !force &&
    old &&
    ['generator', 'seed', 'target_bytes', 'harness'].every((k) => old[k] === params[k]) &&
    existsSync(file) &&
    statSync(file).size === old.bytes &&
    firstSystemMatches(file, h, renderSystemPrompt)
  ) {
    return { generated: false, records: old.records, bytes: old.bytes, seconds: 0 };
  }

  const ajv = new Ajv({ strict: true, allErrors: true });
  const validators = new Map(h.tools.map((t) => [t.name, ajv.compile(t.parameters)]));
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp`;
  const fd = openSync(tmp, 'w');
  const t0 = process.hrtime.bigint();
  let total = 0;
  let records = 0;
  let chunk = [];
  let chunkBytes = 0;
  let lastLog = 0;
  try {
    while (total < targetBytes) {
      const i = records;
      const id = `bench-${String(i).padStart(7, '0')}`;
      let line;
      for (let attempt = 0; ; attempt++) {
        const g = makeRng(`${seed}/rec/${i}/${attempt}`);
        const target = g.int(26 * 1024, 39 * 1024);
        const rec = makeRecord(g, id, h, renderSystemPrompt, target);
        line = JSON.stringify(rec);
        const b = bytes(line);
        if (b >= MIN_RECORD && b <= MAX_RECORD) {
          checkRecord(rec, i + 1, validators);
          break;
        }
        if (attempt > 50) throw new Error(`bench-gen: cannot fit record ${id} into 25–40 KB (last ${b} bytes)`);
      }
      line += '\n';
      const b = bytes(line);
      chunk.push(line);
      chunkBytes += b;
      total += b;
      records++;
      if (chunkBytes >= 8 << 20) {
        writeSync(fd, chunk.join(''));
        chunk = [];
        chunkBytes = 0;
      }
      if (total - lastLog >= 256 << 20) {
        lastLog = total;
        log(`  generated ${(total / 2 ** 20).toFixed(0)} / ${(targetBytes / 2 ** 20).toFixed(0)} MB`);
      }
    }
    if (chunk.length) writeSync(fd, chunk.join(''));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  writeFileSync(pfile, `${JSON.stringify({ ...params, records, bytes: total }, null, 2)}\n`);
  return { generated: true, records, bytes: total, seconds };
}

/** The first record's system message still equals what the engine renders (guards against render changes). */
export function firstSystemMatches(file, h, renderSystemPrompt) {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(64 * 1024);
    const n = readSync(fd, buf, 0, buf.length, 0);
    const nl = buf.indexOf(10);
    if (nl < 0 || nl > n) return false;
    const rec = JSON.parse(buf.toString('utf8', 0, nl));
    return rec.messages[0].content === renderSystemPrompt(h, rec.context);
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
