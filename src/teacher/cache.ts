import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
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

  /** The cache key of a request. */
  static key(endpoint: string, body: unknown, sample = 0): string {
    return sha256(canonicalJson({ endpoint: endpoint.replace(/\/+$/, ''), body, sample }));
  }

  private file(key: string): string {
    return path.join(this.dir, key.slice(0, 2), `${key}.json`);
  }

  async get(key: string): Promise<unknown | undefined> {
    try {
      return JSON.parse(await readFile(this.file(key), 'utf8'));
    } catch {
      return undefined;
    }
  }

  async put(key: string, response: unknown): Promise<void> {
    const file = this.file(key);
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(tmp, `${JSON.stringify(response)}\n`);
    await rename(tmp, file);
  }
}

/** The default cache folder: $HSA_CACHE_DIR, else $XDG_CACHE_HOME/hsa/teacher, else ~/.cache/hsa/teacher. */
export function defaultCacheDir(): string {
  if (process.env.HSA_CACHE_DIR) return process.env.HSA_CACHE_DIR;
  const base = process.env.XDG_CACHE_HOME || path.join(homedir(), '.cache');
  return path.join(base, 'hsa', 'teacher');
}
