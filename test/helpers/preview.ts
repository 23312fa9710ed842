import { expect } from 'vitest';

/** One variant of `hsa preview --json`. */
export interface PreviewVariant {
  id: string;
  ok: boolean;
  slot: number | null;
  record: { messages: unknown };
  tools: unknown;
}

/**
 * Compare preview's variants (its `--json` stdout) with augment's SFT records by id: a variant is
 * written exactly when preview says ok, and then with the same messages, tools and pool slot.
 * Returns the variants compared.
 */
export function expectPreviewMatchesSft(stdout: string, sft: ReadonlyMap<unknown, Record<string, unknown>>): PreviewVariant[] {
  const compared: PreviewVariant[] = [];
  for (const v of JSON.parse(stdout).variants as PreviewVariant[]) {
    const written = sft.get(v.id);
    if (!v.ok) {
      expect(written, v.id).toBeUndefined();
      continue;
    }
    expect(written, v.id).toBeDefined();
    expect(JSON.stringify(v.record.messages), v.id).toBe(JSON.stringify(written!.messages));
    expect(JSON.stringify(v.tools), v.id).toBe(JSON.stringify(written!.tools));
    expect(v.slot).toBe((written!.meta as { harness: { state_slot?: number } }).harness.state_slot ?? null);
    compared.push(v);
  }
  return compared;
}
