import { randomBytes } from 'node:crypto';
import { rename as renameCb, writeFile as writeFileCb } from 'node:fs';
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
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
      const text = k === 'messages' && Array.isArray(v) ? `[${v.map(cachedCanonical).join(',')}]` : k === 'tools' && Array.isArray(v) ? cachedCanonical(v) : canonicalJson(v);
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

  async get(key: string): Promise<unknown | undefined> {
    if (!(await this.shard(key)).has(key)) return undefined;
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8'));
    } catch {
      return undefined;
    }
  }

  private readonly made = new Set<string>();

  async put(key: string, response: unknown): Promise<void> {
    const file = this.file(key);
    const dir = path.dirname(file);
    if (!this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    // The callback API: a few hundred answers a second are stored, and each promise-based call
    // cost the main thread about twice as much (measured).
    await new Promise<void>((resolve, reject) => {
      writeFileCb(tmp, `${JSON.stringify(response)}\n`, (e) => {
        if (e) return reject(e);
        renameCb(tmp, file, (e2) => (e2 ? reject(e2) : resolve()));
      });
    });
    (await this.shard(key)).add(key);
  }
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
