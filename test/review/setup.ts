import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO, runHsa } from '../helpers/hsa.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A small copy of the live-commerce fixture run: the first `records` trajectories under the fixture
 * config, written into a fresh temporary folder (harness, general prompts and config copied, so a
 * test may edit the inputs). Returns the folder and the argv to run augment again.
 */
export function smallRun(opts: { records?: number; seed?: string; extra?: string[] } = {}): { dir: string; out: string; traj: string; harness: string; augment: (out: string, extra?: string[]) => ReturnType<typeof runHsa> } {
  const dir = tempDir('hsa-review-');
  const fx = path.join(REPO, 'fixtures', 'live-commerce');
  cpSync(path.join(fx, 'harness'), path.join(dir, 'harness'), { recursive: true });
  const lines = readFileSync(path.join(fx, 'trajectories.jsonl'), 'utf8').split('\n').filter((l) => l.trim() !== '');
  const traj = path.join(dir, 'traj.jsonl');
  writeFileSync(traj, `${lines.slice(0, opts.records ?? 24).join('\n')}\n`);
  const harness = path.join(dir, 'harness');
  const augment = (out: string, extra: string[] = []) =>
    runHsa(['augment', '--config', path.join(fx, 'hsa.yaml'), '--harness', harness, '-t', traj, '--general', path.join(REPO, 'fixtures/general/prompts.jsonl'), '-o', out, '--part-size', '8', '-q', '--force', ...(opts.seed ? ['--seed', opts.seed] : []), ...(opts.extra ?? []), ...extra]);
  const out = path.join(dir, 'out');
  const r = augment(out);
  if (r.code !== 0) throw new Error(`augment failed: ${r.stderr}`);
  return { dir, out, traj, harness, augment };
}

/** Every file under `dir` with its bytes and mtime (to prove a command wrote nothing there). */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const p = path.join(dir, f);
    const st = statSync(p);
    out[f] = st.isDirectory() ? 'dir' : `${st.size}:${st.mtimeMs}:${execFileSync('sha256sum', [p], { encoding: 'utf8' }).slice(0, 64)}`;
  }
  return out;
}
