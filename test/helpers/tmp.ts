import { mkdtempSync, rmSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A fresh temporary folder; `cleanup` removes it. */
export async function makeTmp(prefix = 'hsa-test-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Write files (relative path → text or bytes) under `root`, creating folders. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    await mkdir(path.dirname(abs), { recursive: true });
    await writeFile(abs, content);
  }
}

/** JSON text of an OpenAI function tool with an object schema. */
export function openAiTool(name: string, properties: Record<string, unknown> = {}, required: string[] = []): Record<string, unknown> {
  return {
    type: 'function',
    function: { name, description: `The ${name} tool.`, parameters: { type: 'object', properties, ...(required.length ? { required } : {}) } },
  };
}

const made: string[] = [];

/** A fresh folder under the OS temp folder, removed by `removeTempDirs` (call it in afterAll). */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
