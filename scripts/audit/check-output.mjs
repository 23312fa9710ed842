#!/usr/bin/env node
// Independent checker of an `hsa augment` output folder. It shares no code with the engine on
// purpose: it reads the final bytes (SFT parts, rejects, manifest) and the source trajectories
// (and harness folder, when one was used) with its own parsers and ajv, so that a defect in the
// engine's own checks cannot hide a defect in its output. See scripts/audit/README.md.
//
//   node scripts/audit/check-output.mjs --out OUT --sources traj.jsonl [more.jsonl] [--harness DIR] [--json]
//
// Exit 0: every check passed; 1: some check failed (the first examples of each are printed).
// The parts (readers, name matching, schema walks, line comparison) are in scripts/audit/check-output/;
// like this file they share no code with the engine.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { parseArgs, readJsonl, partFiles, readHarness } from './check-output/read.mjs';
import { DISTINCTIVE, esc, phraseLeak, respell, safeName, renameTables } from './check-output/names.mjs';
import {
  contentText,
  parseArgsOf,
  canon,
  renameKeys,
  propertyNames,
  danglingRefs,
  staleKeys,
  staleValueKeys,
  discriminatorNames,
  titles,
  descriptions,
} from './check-output/schema.mjs';
import { normaliseLine, explains, listBlocks, answersOf } from './check-output/lines.mjs';

function main() {
  const o = parseArgs(process.argv.slice(2));
  const harness = o.harness ? readHarness(o.harness) : null;
  const sources = new Map();
  let sourceLines = 0;
  for (const f of o.sources)
    for (const r of readJsonl(f)) {
      sourceLines++;
      sources.set(r.id, r);
    }
  const manifest = JSON.parse(readFileSync(join(o.out, 'manifest.json'), 'utf8'));
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  const compiled = new Map();
  const validator = (schema) => {
    const key = JSON.stringify(schema);
    if (!compiled.has(key)) {
      let fn;
      try {
        fn = ajv.compile(schema);
      } catch {
        fn = null;
      }
      compiled.set(key, fn);
    }
    return compiled.get(key);
  };
  const fails = {};
  const fail = (kind, id, detail) => {
    (fails[kind] ??= []).push(`${id}: ${detail}`);
  };
  let records = 0;
  const sourcesSeen = new Set();
  const stat = { calls: 0, skillBodies: 0, promptLists: 0 };

  for (const file of partFiles(join(o.out, 'sft'))) {
    for (const r of readJsonl(file)) {
      records++;
      const id = r.id;
      if (/~src$/.test(id)) continue;
      const src = sources.get(r.meta?.source_id);
      if (!src) {
        fail('f_source', id, `source ${r.meta?.source_id} not among the sources`);
        continue;
      }
      sourcesSeen.add(src.id);
      const t = renameTables(r.meta);
      const newNames = new Set([...Object.values(t.tools), ...Object.values(t.params), ...Object.values(t.skills), ...Object.values(t.hooks)]);
      const olds = [...new Set([...Object.keys(t.tools), ...Object.keys(t.params), ...Object.keys(t.skills), ...Object.keys(t.hooks)])].filter(
        (n) => !newNames.has(n),
      );
      // A source tool named with characters OpenAI does not allow (`math.factorial`, an MCP
      // `tracker.search`) is renamed under its OpenAI-safe name; its name as the source spells it is
      // renamed away too, and must not be left in what the model reads.
      for (const x of [...(src.tools ?? []), ...(harness?.tools ?? [])]) {
        const n = typeof x === 'string' ? x : (x.function?.name ?? x.name);
        if (typeof n !== 'string' || safeName(n) === n) continue;
        const to = t.tools[safeName(n)];
        if (to !== undefined && to !== n && !olds.includes(n)) olds.push(n);
      }
      const spelled = [...(src.tools ?? []), ...(harness?.tools ?? [])]
        .map((x) => (typeof x === 'string' ? x : (x.function?.name ?? x.name)))
        .filter((n) => typeof n === 'string');
      const forward = new Map();
      for (const tab of [t.tools, t.params, t.skills, t.hooks]) for (const [old, nw] of Object.entries(tab)) if (old !== nw) forward.set(old, nw);
      const invTools = Object.assign(Object.create(null), Object.fromEntries(Object.entries(t.tools).map(([a, b]) => [b, a])));
      const invParams = Object.assign(Object.create(null), Object.fromEntries(Object.entries(t.params).map(([a, b]) => [b, a])));
      const invSkills = Object.assign(Object.create(null), Object.fromEntries(Object.entries(t.skills).map(([a, b]) => [b, a])));

      // (a) calls validate against the record's own tools
      const toolByName = new Map((r.tools ?? []).map((x) => [x.function?.name ?? x.name, x.function ?? x]));
      const calls = [];
      for (const m of r.messages)
        for (const c of m.tool_calls ?? []) {
          stat.calls++;
          let args;
          try {
            args = parseArgsOf(c.function.arguments);
          } catch {
            fail('a_invalid_call', id, `${c.function.name}: arguments not JSON`);
            continue;
          }
          calls.push({ name: c.function.name, args });
          const tool = toolByName.get(c.function.name);
          if (!tool) {
            fail('a_invalid_call', id, `${c.function.name}: not in the record's tools`);
            continue;
          }
          // An old parameter name left as a key where the schema now declares its new name.
          const stale = Object.fromEntries(Object.entries(t.params).filter(([a]) => olds.includes(a)));
          for (const k of staleKeys(args, tool.parameters ?? {}, stale)) fail('b_leak', id, `${c.function.name} call still has argument key "${k}"`);
          const v = validator(tool.parameters ?? { type: 'object' });
          if (v === null) fail('a_invalid_call', id, `${c.function.name}: schema does not compile`);
          else if (!v(args)) fail('a_invalid_call', id, `${c.function.name}: ${ajv.errorsText(v.errors)}`);
        }

      // (b) no renamed-away name in what the model reads
      const loaderTool = harness?.loader ? (t.tools[harness.loader.tool] ?? harness.loader.tool) : null;
      const loaderAnswers = answersOf(r.messages, loaderTool);
      const texts = []; // [where, text, isSkillBody]
      r.messages.forEach((m, i) => {
        if (m.role === 'system' || m.role === 'developer' || m.name === 'harness:preamble')
          texts.push([`messages.${i}(${m.role === 'developer' ? 'developer' : 'system'})`, contentText(m.content), false]);
        else if (m.role === 'assistant') texts.push([`messages.${i}(assistant)`, contentText(m.content), false]);
        else if (m.name && /^hook:/.test(m.name)) texts.push([`messages.${i}(feedback)`, contentText(m.content), false]);
        else if (m.role === 'tool' && loaderAnswers.has(i)) texts.push([`messages.${i}(skill body)`, contentText(m.content), true]);
      });
      for (const x of r.tools ?? []) {
        const f = x.function ?? x;
        // (g) every local reference of a tool's schema points at something (a rename kept its target).
        for (const ref of danglingRefs(f.parameters ?? {})) fail('g_dangling_ref', id, `tool ${f.name}: $ref ${ref} points at nothing`);
        texts.push([`tools.${f.name}.description`, [f.description ?? '', ...descriptions(f.parameters)].join('\n'), false]);
        // A tool that keeps its name is no leak when only a parameter of that name was renamed (a
        // `tags` tool beside another tool's `tags` parameter): as for parameters below, an old name
        // counts in its own kind.
        const paramOnly = t.params[f.name] !== undefined && t.tools[f.name] === undefined && t.skills[f.name] === undefined && t.hooks[f.name] === undefined;
        if (olds.includes(f.name) && !paramOnly) fail('b_leak', id, `tool list still has "${f.name}"`);
        for (const p of propertyNames(f.parameters))
          if (olds.includes(p) && t.params[p] !== undefined) fail('b_leak', id, `tool ${f.name} still has parameter "${p}"`);
        // A union's discriminator still naming a renamed-away property (ajv's discriminator option would refuse every variant).
        for (const p of discriminatorNames(f.parameters))
          if (olds.includes(p) && t.params[p] !== undefined) fail('b_leak', id, `tool ${f.name}: discriminator names old parameter "${p}"`);
        // Object values a schema carries (default, examples, const, enum) keyed by an old name.
        const staleParams = Object.fromEntries(Object.entries(t.params).filter(([a]) => olds.includes(a)));
        for (const k of staleValueKeys(f.parameters ?? {}, staleParams))
          fail('b_leak', id, `tool ${f.name}: ${k.split(' ')[0]} value still has key "${k.split(' ')[1]}"`);
        // A distinctive old tool name glued to a word in a title (FastMCP's `name_shrimpArguments`).
        for (const old of Object.keys(t.tools)) {
          if (!olds.includes(old) || !DISTINCTIVE.test(old)) continue;
          const glued = new RegExp(`(?<![A-Za-z0-9_-])${esc(old)}(?=[A-Z])`);
          for (const title of titles(f.parameters)) if (glued.test(title)) fail('b_leak', id, `tool ${f.name}: title "${title}" spells old tool name "${old}"`);
        }
      }
      // A loaded SKILL.md with its front matter names the skill in a `name:` line (a plain word elsewhere).
      for (const [where, text, body] of texts) {
        if (!body || !text.startsWith('---')) continue;
        const head = text.slice(0, Math.max(0, text.indexOf('\n---', 3)));
        const m = /^name:[ \t]*["']?([^"'\r\n]*?)["']?[ \t]*$/m.exec(head);
        if (m && t.skills[m[1]] !== undefined && olds.includes(m[1])) fail('b_leak', id, `front matter names "${m[1]}" in ${where}`);
      }
      for (const old of olds) {
        const isParam = t.params[old] !== undefined && t.tools[old] === undefined && t.skills[old] === undefined && t.hooks[old] === undefined;
        for (const [where, text, body] of texts) {
          if (DISTINCTIVE.test(old)) {
            if (phraseLeak(old, text, spelled)) fail('b_leak', id, `"${old}" in ${where}`);
          } else {
            if (body && isParam) continue; // plain-word parameters stay in skill bodies unless beside their tool
            const span = new RegExp('`' + esc(old) + '(\\([^`]*\\))?`');
            // JSON keys, and in a tool list written out as JSON: `"required": [..]` items and `"name": ".."` values.
            const key =
              !body &&
              (new RegExp(`"${esc(old)}"\\s*:`).test(text) ||
                new RegExp(`"required"\\s*:\\s*\\[[^\\]]*"${esc(old)}"`).test(text) ||
                new RegExp(`"name"\\s*:\\s*"${esc(old)}"`).test(text));
            if (span.test(text) || key) fail('b_leak', id, `plain "${old}" in ${where}`);
          }
        }
      }

      // (c)/(d) skill bodies: only plan renames and restyles; list order kept
      const srcBodies = [];
      const srcSkills = []; // the skill each body is of (skills.unordered_lists may reorder its bullet lists)
      if (harness?.loader) {
        const answers = answersOf(src.messages, harness.loader.tool);
        const loaded = new Map();
        for (const m of src.messages)
          for (const c of m.tool_calls ?? [])
            if (c.function.name === harness.loader.tool) {
              try {
                loaded.set(c.id, parseArgsOf(c.function.arguments)?.[harness.loader.argument]);
              } catch {
                /* not JSON */
              }
            }
        src.messages.forEach((m, i) => {
          if (answers.has(i)) {
            srcBodies.push(contentText(m.content));
            srcSkills.push(loaded.get(m.tool_call_id));
          }
        });
      }
      const varBodies = texts.filter((x) => x[2]).map((x) => x[1]);
      if (srcBodies.length !== varBodies.length) fail('c_skill_body', id, `${varBodies.length} skill bodies, source has ${srcBodies.length}`);
      srcBodies.forEach((sb, k) => {
        if (varBodies[k] === undefined) return;
        stat.skillBodies++;
        const a = sb.split('\n').map(normaliseLine).filter(Boolean);
        const b = varBodies[k].split('\n').map(normaliseLine).filter(Boolean);
        const j = a.length === b.length ? a.findIndex((l, n) => !explains(l, b[n], forward)) : Math.min(a.length, b.length);
        if (j < 0) return;
        const used = new Set();
        const permuted =
          a.length === b.length &&
          b.every((l) => {
            const n = a.findIndex((x, m) => !used.has(m) && explains(x, l, forward));
            if (n >= 0) used.add(n);
            return n >= 0;
          });
        // Declared free to reorder: the skill in skills.unordered_lists, or a list marked <!-- hsa:unordered --> in its body.
        if (permuted && (harness.unorderedSkills.includes(srcSkills[k]) || /<!--\s*hsa:unordered\s*-->/.test(sb))) return;
        if (permuted) fail('d_reordered_skill_list', id, `skill body ${k} has its lines in another order (first at line ${j})`);
        else fail('c_skill_body', id, `skill body ${k} line ${j}: source ${JSON.stringify(a[j]?.slice(0, 80))} vs ${JSON.stringify(b[j]?.slice(0, 80))}`);
      });
      // (d) lists of the system prompt keep their order (all lists when no section is unordered,
      // else numbered lists only — the checker does not map lists to sections)
      const srcSys = src.messages.find((m) => m.role === 'system');
      // The prompt the model reads: the system message and a preamble (a section placed before the first user turn).
      const varSys = r.messages.filter((m) => m.role === 'system' || m.name === 'harness:preamble');
      if (srcSys && varSys.length > 0) {
        const lines = varSys
          .map((m) => contentText(m.content))
          .join('\n')
          .split('\n')
          .map(normaliseLine);
        const find = (item, from) => {
          for (let n = from; n < lines.length; n++) if (explains(item, lines[n], forward)) return n;
          return -1;
        };
        for (const blk of listBlocks(contentText(srcSys.content))) {
          if ((harness?.unordered?.length ?? 0) > 0 && !blk.numbered) continue;
          // The skill catalog (`- id: description`) is not instructions: catalog-order and describe change it.
          if (harness?.loader && blk.items.every((x) => /^[A-Za-z0-9_-]+: /.test(x))) continue;
          stat.promptLists++;
          let at = -1;
          let ok = true;
          for (const item of blk.items) {
            const n = find(respell(item, spelled, forward), at + 1);
            if (n < 0) {
              ok = find(respell(item, spelled, forward), 0) >= 0 ? 'order' : 'missing';
              break;
            }
            at = n;
          }
          if (ok === 'order') fail('d_reordered_prompt_list', id, `list starting ${JSON.stringify(blk.items[0].slice(0, 60))}`);
          else if (ok === 'missing') fail('d_prompt_list_changed', id, `list starting ${JSON.stringify(blk.items[0].slice(0, 60))}`);
        }
      }

      // (e) the task: calls map back to the source's calls
      const srcCalls = [];
      for (const m of src.messages)
        for (const c of m.tool_calls ?? []) {
          try {
            srcCalls.push({ name: c.function.name, args: parseArgsOf(c.function.arguments) });
          } catch {
            srcCalls.push({ name: c.function.name, args: c.function.arguments });
          }
        }
      if (srcCalls.length !== calls.length) fail('e_task', id, `${calls.length} calls, source has ${srcCalls.length}`);
      else
        calls.forEach((c, k) => {
          const name = invTools[c.name] ?? c.name;
          let args = c.args;
          const wrap = t.wrap[c.name];
          if (wrap && args && typeof args === 'object' && Object.keys(args).length === 1 && args[wrap] !== undefined) args = args[wrap];
          // `flatten:KEY`: the source's one object parameter KEY (named as in the variant) was flattened into the call.
          const flat = t.flatten[c.name];
          if (flat && args && typeof args === 'object' && !Array.isArray(args)) args = { [flat]: args };
          args = renameKeys(args, invParams);
          if (harness?.loader && name === harness.loader.tool && args && typeof args[harness.loader.argument] === 'string') {
            args = { ...args, [harness.loader.argument]: invSkills[args[harness.loader.argument]] ?? args[harness.loader.argument] };
          }
          if (name !== srcCalls[k].name && name !== safeName(srcCalls[k].name))
            fail('e_task', id, `call ${k}: ${c.name} maps to ${name}, source ${srcCalls[k].name}`);
          else if (canon(args) !== canon(srcCalls[k].args))
            fail('e_task', id, `call ${k} (${name}): arguments differ: ${canon(args).slice(0, 120)} vs ${canon(srcCalls[k].args).slice(0, 120)}`);
        });
    }
  }

  // (f) counts
  const tot = manifest.totals ?? {};
  const rejects = partFiles(join(o.out, 'rejects')).reduce((n, f) => n + readJsonl(f).length, 0);
  if (tot.input_records !== sourceLines) fail('f_counts', 'manifest', `input_records ${tot.input_records}, source lines ${sourceLines}`);
  if (tot.input_records !== tot.valid_records + tot.rejected_records) fail('f_counts', 'manifest', 'input_records != valid + rejected');
  if (tot.variants_expected !== tot.variants_written + tot.variants_rejected) fail('f_counts', 'manifest', 'variants_expected != written + rejected');
  if (records !== tot.variants_written + (tot.kept_sources ?? 0) - (tot.sft_skipped ?? 0))
    fail('f_counts', 'sft', `${records} SFT records, manifest says ${tot.variants_written} written`);
  if (rejects < tot.rejected_records + tot.variants_rejected)
    fail('f_counts', 'rejects', `${rejects} reject lines < ${tot.rejected_records} + ${tot.variants_rejected}`);

  const report = {
    out: o.out,
    source_records: sourceLines,
    valid_records: tot.valid_records,
    sources_with_variants: sourcesSeen.size,
    variants_written: tot.variants_written,
    variants_rejected: tot.variants_rejected,
    validate_rate: sourceLines ? tot.valid_records / sourceLines : 0,
    augment_rate: sourceLines ? sourcesSeen.size / sourceLines : 0,
    checked: { records, ...stat },
    failures: Object.fromEntries(Object.entries(fails).map(([k, v]) => [k, { count: v.length, examples: v.slice(0, 5) }])),
  };
  if (o.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  else {
    process.stdout.write(
      `${o.out}: ${records} records; validate ${(report.validate_rate * 100).toFixed(1)}%, augment ${(report.augment_rate * 100).toFixed(1)}%; ${stat.calls} calls, ${stat.skillBodies} skill bodies, ${stat.promptLists} prompt lists checked\n`,
    );
    for (const [k, v] of Object.entries(report.failures)) process.stdout.write(`  FAIL ${k}: ${v.count}\n${v.examples.map((e) => `    ${e}\n`).join('')}`);
    if (Object.keys(fails).length === 0) process.stdout.write('  all checks passed\n');
  }
  process.exitCode = Object.keys(fails).length ? 1 : 0;
}

main();
