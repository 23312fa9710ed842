import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { cpSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO, runHsa } from '../helpers/hsa.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A small copy of the live-commerce fixture run: the first `records` trajectories under the fixture
 * config, written into a fresh temporary folder (harness, general prompts and config copied, so a
 * test may edit the inputs). Returns the folder and the argv to run augment again.
 */
export async function smallRun(opts: { records?: number; seed?: string; extra?: string[] } = {}): Promise<SmallRun> {
  const dir = tempDir('hsa-review-');
  const fx = path.join(REPO, 'fixtures', 'live-commerce');
  cpSync(path.join(fx, 'harness'), path.join(dir, 'harness'), { recursive: true });
  const lines = readFileSync(path.join(fx, 'trajectories.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const traj = path.join(dir, 'traj.jsonl');
  writeFileSync(traj, `${lines.slice(0, opts.records ?? 24).join('\n')}\n`);
  const harness = path.join(dir, 'harness');
  const args = (out: string, extra: string[] = []) => [
    'augment',
    '--no-gzip',
    '--config',
    path.join(fx, 'hsa.yaml'),
    '--harness',
    harness,
    '-t',
    traj,
    '--general',
    path.join(REPO, 'fixtures/general/prompts.jsonl'),
    '-o',
    out,
    '--part-size',
    '8',
    '-q',
    '--force',
    ...(opts.seed ? ['--seed', opts.seed] : []),
    ...(opts.extra ?? []),
    ...extra,
  ];
  // The real binary, for runs whose exit code and output a test reads.
  const augment = (out: string, extra: string[] = []) => runHsa(args(out, extra));
  // In-process (the same CLI entry point, without a process start), for runs that only make data.
  const make = async (out: string, extra: string[] = []) => {
    // The built CLI (as bin/hsa runs it), loaded once into the test process.
    const { run } = (await import(pathToFileURL(path.join(REPO, 'dist', 'src', 'cli', 'main.js')).href)) as {
      run: (argv: string[], io: unknown) => Promise<number>;
    };
    let stderr = '';
    const io = { out: () => undefined, err: (t: string) => void (stderr += t), errIsTty: false };
    const code = await run(args(out, extra), io);
    if (code !== 0) throw new Error(`augment failed (${code}): ${stderr}`);
  };
  const out = path.join(dir, 'out');
  await make(out);
  return { dir, out, traj, harness, augment, make };
}

export interface SmallRun {
  dir: string;
  out: string;
  traj: string;
  harness: string;
  augment: (out: string, extra?: string[]) => ReturnType<typeof runHsa>;
  make: (out: string, extra?: string[]) => Promise<void>;
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
