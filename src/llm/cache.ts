import { readFile, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { canonicalJson } from '../util/canonical-json.js';
import { sha256 } from '../util/hash.js';

/**
 * Content-addressed cache of teacher answers: one file per request, named by the sha256 of the
 * canonical request (endpoint, model, messages, tools and every sampling parameter, sample index).
 * Files are written to a unique temporary name and renamed, so several processes — on one machine
 * or on a shared file system — can fill the same cache: a reader sees a whole answer or none, and
 * two writers of one key write the same answer.
 */
export class TeacherCache {
  constructor(readonly dir: string) {}

  /**
   * The cache key of a request: sha256 of the canonical JSON of {body, endpoint, sample}. An
   * episode sends the same message and tool objects again and again, so their canonical text is
   * computed once per object and the body's text is assembled from the pieces (the result is the
   * same canonical JSON).
   */
  static key(endpoint: string, body: Record<string, unknown>, sample = 0): string {
    const parts: string[] = [];
    for (const k of Object.keys(body).sort()) {
      const v = body[k];
      if (v === undefined) continue;
      const text =
        k === 'messages' && Array.isArray(v)
          ? `[${v.map(cachedCanonical).join(',')}]`
          : k === 'tools' && Array.isArray(v)
            ? cachedCanonical(v)
            : canonicalJson(v);
      parts.push(`${JSON.stringify(k)}:${text}`);
    }
    return sha256(`{"body":{${parts.join(',')}},"endpoint":${JSON.stringify(endpoint.replace(/\/+$/, ''))},"sample":${sample}}`);
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  /**
   * Keys present per shard folder, listed once: a cold cache then costs one listing per shard
   * instead of a failed open per request. Entries this process writes are added; entries another
   * process writes meanwhile may be missed (that costs a repeated request, never a wrong answer).
   */
  private readonly listed = new Map<string, Promise<Set<string>>>();

  private shard(key: string): Promise<Set<string>> {
    const dir = path.join(this.dir, key.slice(0, 2));
    let p = this.listed.get(dir);
    if (!p) {
      p = readdir(dir).then(
        (names) => new Set(names.filter((n) => n.endsWith('.json')).map((n) => n.slice(0, -5))),
        () => new Set<string>(),
      );
      this.listed.set(dir, p);
    }
    return p;
  }

  async get(key: string): Promise<unknown> {
    if (!(await this.shard(key)).has(key)) return undefined;
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8'));
    } catch {
      return undefined;
    }
  }

  async put(key: string, response: unknown): Promise<void> {
    await writer().write(this.file(key), `${JSON.stringify(response)}\n`);
    (await this.shard(key)).add(key);
  }
}

/**
 * The worker thread's code (CommonJS, evaluated): it writes batches of files, each to a unique
 * temporary name (process id and random bytes: unique across the machines of a shared file system)
 * renamed into place, and answers with the ids written and the error of each one that failed.
 */
const WRITER_CODE = `
const { parentPort } = require('node:worker_threads');
const { mkdirSync, renameSync, writeFileSync } = require('node:fs');
const { randomBytes } = require('node:crypto');
const path = require('node:path');
const made = new Set();
parentPort.on('message', (batch) => {
  const done = [];
  for (const [id, file, text] of batch) {
    try {
      const dir = path.dirname(file);
      if (!made.has(dir)) { mkdirSync(dir, { recursive: true }); made.add(dir); }
      const tmp = file + '.' + process.pid + '.' + randomBytes(6).toString('hex') + '.tmp';
      writeFileSync(tmp, text);
      renameSync(tmp, file);
      done.push([id, null]);
    } catch (e) {
      done.push([id, e && e.message ? e.message : String(e)]);
    }
  }
  parentPort.postMessage(done);
});
`;

/**
 * Cache files are written by one worker thread, in batches of what a turn of the event loop
 * stored. A few hundred answers a second are stored, and on the main thread each one's open,
 * write and rename (through libuv's pool) cost ~15% of the teacher's main-thread time (measured),
 * which paces how fast 64 episodes go round. The worker holds the process open only while writes
 * are pending.
 */
class CacheWriter {
  private worker: Worker | undefined;
  private next = 0;
  private batch: [number, string, string][] = [];
  private readonly pending = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();

  write(file: string, text: string): Promise<void> {
    const id = this.next++;
    if (this.batch.length === 0) setImmediate(() => this.flush());
    this.batch.push([id, file, text]);
    return new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    if (!this.worker) {
      // No inherited node options: `--input-type=module` would make the code an ES module.
      this.worker = new Worker(WRITER_CODE, { eval: true, execArgv: [] });
      this.worker.on('message', (done: [number, string | null][]) => this.settled(done));
      this.worker.on('error', (e) => this.failAll(e));
    }
    this.worker.ref();
    this.worker.postMessage(batch);
  }

  private settled(done: [number, string | null][]): void {
    for (const [id, error] of done) {
      const p = this.pending.get(id);
      this.pending.delete(id);
      if (error === null) p?.resolve();
      else p?.reject(new Error(error));
    }
    if (this.pending.size === 0) this.worker?.unref();
  }

  private failAll(e: Error): void {
    for (const p of this.pending.values()) p.reject(e);
    this.pending.clear();
    this.worker = undefined;
  }
}

let sharedWriter: CacheWriter | undefined;

function writer(): CacheWriter {
  return (sharedWriter ??= new CacheWriter());
}

const canonicalByObject = new WeakMap<object, string>();

function cachedCanonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return canonicalJson(v);
  let s = canonicalByObject.get(v);
  if (s === undefined) {
    s = canonicalJson(v);
    canonicalByObject.set(v, s);
  }
  return s;
}

/** The default cache folder: $HSA_CACHE_DIR, else $XDG_CACHE_HOME/hsa/teacher, else ~/.cache/hsa/teacher. */
export function defaultCacheDir(): string {
  if (process.env.HSA_CACHE_DIR) return process.env.HSA_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'hsa', 'teacher');
}
