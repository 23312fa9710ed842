import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { memorising } from './helpers/eval-models.js';
import { REPO, runHsa, runHsaAsync } from './helpers/hsa.js';
import { startTeacherServer, type ChatRequest, type Respond } from './helpers/teacher-server.js';
import { makeTmp } from './helpers/tmp.js';

// The judge: `hsa judge calibrate` on the fixture labels against a real local judge server whose
// verdicts are noisy, and the bad inputs of a judge config.
let tmp: { dir: string; cleanup: () => Promise<void> };
let set: string;
const LABELS = path.join(REPO, 'fixtures/eval/labels.jsonl');
const RUBRIC = path.join(REPO, 'fixtures/eval/rubric.yaml');
const truth = new Map<string, Record<string, number>>();

beforeAll(() => {
  tmp = { dir: '', cleanup: async () => undefined };
  return makeTmp('hsa-judge-').then((t) => {
    tmp = t;
    set = path.join(tmp.dir, 'set');
    const r = runHsa([
      'augment',
      '--no-gzip',
      '--config',
      'fixtures/live-commerce/hsa.yaml',
      '--variants',
      '0',
      '--keep-source',
      '--stages',
      'rl',
      '--out',
      set,
      '--quiet',
    ]);
    expect(r.code, r.stderr).toBe(0);
    for (const line of readFileSync(LABELS, 'utf8').split('\n').filter(Boolean)) {
      const l = JSON.parse(line);
      truth.set(l.reply, l.labels);
    }
  });
}, 60_000);
afterAll(() => tmp?.cleanup());

/** A judge that gives the human level with probability 0.5 per vote, else a level drawn at random (seeded by the request). */
function noisyJudge(): Respond {
  return (req: ChatRequest) => {
    const user = String(req.messages[1]?.content ?? '');
    const reply = user.slice(user.indexOf('Reply to grade:\n') + 'Reply to grade:\n'.length);
    const levels = truth.get(reply) ?? { grounded: 3, helpful: 3 };
    const scores: Record<string, number> = {};
    for (const [k, v] of Object.entries(levels)) {
      const h = createHash('sha256').update(`${reply}\u0000${k}\u0000${req.seed}`).digest();
      scores[k] = h[0]! < 128 ? v : 1 + (h[1]! % 5);
    }
    return { kind: 'message', content: `Verdict: ${JSON.stringify({ scores, reason: 'noisy' })}` };
  };
}

function config(url: string, more = ''): string {
  const file = path.join(
    tmp.dir,
    `eval-${createHash('sha256')
      .update(url + more)
      .digest('hex')
      .slice(0, 8)}.yaml`,
  );
  writeFileSync(
    file,
    `set: [${set}]\ncache: ${path.join(tmp.dir, 'cache-cfg')}\njudge:\n  base_url: ${url}\n  model: noisy\n  rubric: ${RUBRIC}\n  max_retries: 0\n${more}`,
  );
  return file;
}

describe('hsa judge calibrate', () => {
  it('prints accuracy, kappa and the confusion table; k = 3 votes agree better than k = 1; a warm rerun sends nothing', async () => {
    const server = await startTeacherServer(noisyJudge());
    try {
      const cfg = config(server.url);
      const cache = path.join(tmp.dir, 'cache');
      const k1 = await runHsaAsync(['judge', 'calibrate', '--config', cfg, '--labels', LABELS, '--votes', '1', '--cache', cache, '--json']);
      expect(k1.code, k1.stderr).toBe(0);
      const k3 = await runHsaAsync(['judge', 'calibrate', '--config', cfg, '--labels', LABELS, '--votes', '3', '--cache', cache, '--json']);
      expect(k3.code, k3.stderr).toBe(0);
      const a1 = JSON.parse(k1.stdout);
      const a3 = JSON.parse(k3.stdout);
      expect(a1.labels).toBe(35);
      for (const c of ['grounded', 'helpful']) {
        const one = a1.criteria.find((x: any) => x.criterion === c);
        const three = a3.criteria.find((x: any) => x.criterion === c);
        expect(three.accuracy, c).toBeGreaterThan(one.accuracy);
        expect(three.kappa, c).toBeGreaterThan(one.kappa);
      }
      const sent = server.count();
      const text = await runHsaAsync(['judge', 'calibrate', '--config', cfg, '--labels', LABELS, '--votes', '3', '--cache', cache]);
      expect(text.code, text.stderr).toBe(0);
      expect(server.count()).toBe(sent);
      expect(text.stdout).toMatch(/grounded: n 35, accuracy [\d.]+, within one level [\d.]+, Cohen's kappa [\d.-]+/);
      expect(text.stdout).toContain('confusion (rows human, columns judge)');
    } finally {
      await server.close();
    }
  }, 60_000);

  it('bad input: a rubric with a missing scale, labels whose ids are not in the set', async () => {
    const rubric = path.join(tmp.dir, 'no-scale.yaml');
    writeFileSync(rubric, readFileSync(RUBRIC, 'utf8').replace(/(- id: helpful\n.*\n.*\n) {4}scale:\n( {6}.*\n)+/, '$1'));
    const bad = path.join(tmp.dir, 'bad.yaml');
    writeFileSync(bad, `set: [${set}]\njudge:\n  base_url: http://127.0.0.1:9/v1\n  model: m\n  rubric: ${rubric}\n`);
    const r1 = runHsa(['judge', 'calibrate', '--config', bad, '--labels', LABELS]);
    expect(r1.code).toBe(2); // a config error, like every bad config file
    expect(r1.stderr).toMatch(new RegExp(`${rubric.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: criteria\\.1\\.scale: `));
    const labels = path.join(tmp.dir, 'labels.jsonl');
    writeFileSync(
      labels,
      `${readFileSync(LABELS, 'utf8').split('\n')[0]}\n{"id":"lc-999999","reply":"hi","labels":{"grounded":5}}\n{"id":"lc-000001","turn":7,"reply":"hi","labels":{"grounded":5}}\n{"id":"lc-000001","reply":"hi","labels":{"tone":5}}\n`,
    );
    const r2 = runHsa(['judge', 'calibrate', '--config', config('http://127.0.0.1:9/v1'), '--labels', labels]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toContain(`${labels}:2: id: "lc-999999" is not in the set`);
    expect(r2.stderr).toContain(`${labels}:3: turn: expected an integer 0..`);
    expect(r2.stderr).toContain(`${labels}:4: labels.tone: not a criterion of rubric "live-commerce-reply"`);
  }, 30_000);

  it("hsa eval scores reply quality with the judge (the reward module's ReplyJudge), grounded in the recorded tool results", async () => {
    const seen: string[] = [];
    const judge = await startTeacherServer((req) => {
      const user = String(req.messages[1]?.content ?? '');
      seen.push(user);
      const level = user.includes('Evidence (tool results') ? 4 : 1;
      return { kind: 'message', content: JSON.stringify({ scores: { grounded: level, helpful: level }, reason: 'ok' }) };
    });
    const rows = readdirSync(path.join(set, 'rl')).map((f) => path.join(set, 'rl', f));
    const model = await startTeacherServer(memorising(rows));
    try {
      const cfg = config(judge.url, '  votes: 2\n');
      writeFileSync(
        path.join(tmp.dir, 'one.jsonl'),
        `${readFileSync(path.join(set, 'rl', readdirSync(path.join(set, 'rl'))[0]!), 'utf8')
          .split('\n')
          .slice(0, 6)
          .join('\n')}\n`,
      );
      const r = await runHsaAsync([
        'eval',
        '--config',
        cfg,
        '--set',
        path.join(tmp.dir, 'one.jsonl'),
        '--model-url',
        model.url,
        '--model',
        'mem',
        '--cache',
        path.join(tmp.dir, 'cache-eval'),
        '--tokenizer',
        'estimate',
        '--bootstrap',
        '50',
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.reply).toContain('judge noisy (rubric live-commerce-reply, k=2, majority)');
      expect(report.source.components.reply_quality.mean).toBe(0.75);
      expect(seen.some((u) => /Evidence[^\n]*\n\[1\] /.test(u))).toBe(true);
      const plain = await runHsaAsync([
        'eval',
        '--config',
        cfg,
        '--no-judge',
        '--set',
        path.join(tmp.dir, 'one.jsonl'),
        '--model-url',
        model.url,
        '--model',
        'mem',
        '--cache',
        path.join(tmp.dir, 'cache-eval'),
        '--tokenizer',
        'estimate',
        '--bootstrap',
        '50',
        '--json',
      ]);
      expect(JSON.parse(plain.stdout).reply).toBe('reference token F1');
    } finally {
      await judge.close();
      await model.close();
    }
  }, 60_000);

  it('augment --teacher replay with teacher.judge: trajectories the judge scores below min_score are rejected with its reasons', async () => {
    const judge = await startTeacherServer((req) => {
      const user = String(req.messages[1]?.content ?? '');
      // A judge that dislikes replies in Chinese (a stand-in for any rubric failure).
      const reply = user.slice(user.indexOf('Reply to grade:\n') + 16);
      const level = /[\u4e00-\u9fff]/.test(reply) ? 1 : 5;
      return { kind: 'message', content: JSON.stringify({ scores: { grounded: level, helpful: level }, reason: level === 1 ? 'not in English' : 'fine' }) };
    });
    try {
      const dev = path.join(tmp.dir, 'dev12.jsonl');
      writeFileSync(dev, `${readFileSync(path.join(REPO, 'fixtures/live-commerce/trajectories.jsonl'), 'utf8').split('\n').slice(0, 12).join('\n')}\n`);
      const cfg = path.join(tmp.dir, 'augment-judge.yaml');
      writeFileSync(
        cfg,
        `harness: ${path.join(REPO, 'fixtures/live-commerce/harness')}\ntrajectories: [${dev}]\nvariants: 1\nstages: [sft]\ncache: ${path.join(tmp.dir, 'cache-aug')}\nteacher:\n  mode: replay\n  recovery: { max_attempts: 1 }\n  judge:\n    base_url: ${judge.url}\n    model: picky\n    rubric: ${RUBRIC}\n    min_score: 0.5\n`,
      );
      const out = path.join(tmp.dir, 'aug-judged');
      const a = await runHsaAsync(['augment', '--no-gzip', '--config', cfg, '--out', out, '--quiet']);
      expect(a.code, a.stderr).toBe(0);
      const rejects = readdirSync(path.join(out, 'rejects')).flatMap((f) =>
        readFileSync(path.join(out, 'rejects', f), 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
      const judged = rejects.filter((x: any) => x.teacher_reason_kind === 'teacher_judge_rejected' || x.reason_kind === 'teacher_judge_rejected');
      expect(judged.length).toBeGreaterThan(0);
      expect(JSON.stringify(judged[0])).toContain('not in English');
      expect(JSON.stringify(judged[0])).toContain('min_score 0.5');
      const sft = readdirSync(path.join(out, 'sft')).flatMap((f) =>
        readFileSync(path.join(out, 'sft', f), 'utf8')
          .split('\n')
          .filter(Boolean),
      );
      expect(sft.length).toBeGreaterThan(0);
      expect(sft.length + judged.length).toBe(12);
      const manifest = JSON.parse(readFileSync(path.join(out, 'manifest.json'), 'utf8'));
      expect(manifest.config.teacher.judge.min_score).toBe(0.5);
    } finally {
      await judge.close();
    }
  }, 60_000);

  it('hsa reward --judge-config scores reply quality with the judge', async () => {
    const judge = await startTeacherServer(() => ({ kind: 'message', content: JSON.stringify({ scores: { grounded: 3, helpful: 3 }, reason: 'so-so' }) }));
    try {
      const rollouts = path.join(tmp.dir, 'rollouts.jsonl');
      writeFileSync(rollouts, `${JSON.stringify({ id: 'lc-000049~src', messages: [{ role: 'assistant', content: '晚上好！' }] })}\n`);
      const r = await runHsaAsync([
        'reward',
        '--rows',
        path.join(set, 'rl', '*.jsonl'),
        '--rollouts',
        rollouts,
        '--tokenizer',
        'estimate',
        '--judge-config',
        config(judge.url),
      ]);
      expect(r.code, r.stderr).toBe(0);
      const line = JSON.parse(r.stdout.split('\n')[0]!);
      expect(line.detail.reply.source).toBe('judge:noisy/live-commerce-reply/k1-majority');
      expect(line.components.reply_quality).toBe(0.5);
    } finally {
      await judge.close();
    }
  }, 30_000);
});
