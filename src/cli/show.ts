import { writeFile } from 'node:fs/promises';
import { buildShow } from '../review/show.js';
import { formatShow, showHtml } from '../review/show-report.js';
import type { Io } from './io.js';

export interface ShowCommandOptions {
  out: string;
  id: string;
  sources?: string[];
  harness?: string;
  html?: string;
  json?: boolean;
  /** Colour and width of the text view (the CLI passes the terminal's; tests pass their own). */
  color?: boolean;
  width?: number;
}

/** `hsa show OUT --id ID`: one record beside its source; exit 1 when the id is in no stage. */
export async function showCommand(opts: ShowCommandOptions, io: Io): Promise<number> {
  const view = await buildShow({
    out: opts.out,
    id: opts.id,
    ...(opts.sources ? { sources: opts.sources } : {}),
    ...(opts.harness ? { harness: opts.harness } : {}),
  });
  if (opts.html) await writeFile(opts.html, showHtml(view));
  if (opts.json) {
    io.out(`${JSON.stringify(view, null, 2)}\n`);
    return 0;
  }
  // Colour only on a terminal, and never with NO_COLOR set (https://no-color.org).
  const tty = Boolean(process.stdout.isTTY);
  const color = opts.color ?? (tty && !process.env.NO_COLOR);
  io.out(formatShow(view, { color, width: opts.width ?? (tty ? (process.stdout.columns ?? 160) : 160) }));
  return 0;
}
