import { UsageError } from '../errors.js';
import { readRewardConfig } from '../episode/reward-config.js';
import { RowSet } from '../episode/rows.js';
import { tokenCounter, type TokenizerName } from '../episode/tokens.js';
import { createOrsProtocol } from '../env/ors.js';
import { startEnvServer } from '../env/server.js';
import { SessionStore } from '../env/sessions.js';
import { expandInputs } from '../util/inputs.js';
import type { Io } from './io.js';

export interface EnvServeOptions {
  rows: string[];
  host?: string;
  port?: number;
  /** Seconds a session lives without a request. */
  ttl?: number;
  maxSessions?: number;
  /** Stop after this many seconds without a request (for tests and scripts). */
  idleExit?: number;
  split?: string;
  rewardConfig?: string;
  tokenizer?: string;
  json?: boolean;
  quiet?: boolean;
}

/** Resolve the token counter: the flag wins over the reward config. */
export async function resolveCounter(flag: string | undefined, configured: TokenizerName, io: Io) {
  const name = flag ?? configured;
  if (name !== 'qwen3' && name !== 'estimate') throw new UsageError(`--tokenizer: must be qwen3 or estimate, not "${name}"`);
  return tokenCounter(name, (line) => io.err(`hsa: ${line}\n`));
}

/**
 * `hsa env serve`: load the RL rows, start the HTTP server (Open Reward Standard) on 127.0.0.1 by
 * default, and serve until SIGINT/SIGTERM (or `--idle-exit` seconds without a request).
 */
export async function envServeCommand(o: EnvServeOptions, io: Io, signals: NodeJS.EventEmitter = process): Promise<number> {
  const host = o.host ?? '127.0.0.1';
  const port = o.port ?? 8808;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: must be 0..65535, not ${o.port}`);
  if (o.ttl !== undefined && o.ttl < 1) throw new UsageError('--ttl: must be at least 1 second');
  if (o.maxSessions !== undefined && o.maxSessions < 1) throw new UsageError('--max-sessions: must be at least 1');
  const files = await expandInputs(o.rows, '--rows');
  const rewardCfg = await readRewardConfig(o.rewardConfig);
  const counter = await resolveCounter(o.tokenizer, rewardCfg.tokenizer, io);
  const rows = await RowSet.load(files);
  if (rows.size === 0) throw new UsageError(`--rows: no rows in ${files.join(', ')}`);
  const store = new SessionStore(rows, {
    ttlMs: (o.ttl ?? 900) * 1000,
    maxSessions: o.maxSessions ?? 4096,
    reward: { ...rewardCfg, tokenizer: counter.name },
    counter,
  });
  const protocol = createOrsProtocol(o.split ?? 'train');
  let idle: NodeJS.Timeout | undefined;
  let stop!: () => void;
  const stopped = new Promise<void>((r) => (stop = r));
  const armIdle = () => {
    if (o.idleExit === undefined) return;
    if (idle) clearTimeout(idle);
    idle = setTimeout(() => {
      if (!o.quiet) io.err(`hsa env: no request for ${o.idleExit} s, stopping\n`);
      stop();
    }, o.idleExit * 1000);
  };
  const server = await startEnvServer({
    host,
    port,
    protocols: [protocol],
    store,
    maxBodyBytes: 16 * 2 ** 20,
    log: (line) => io.err(`${line}\n`),
    onRequest: armIdle,
  });
  armIdle();
  const loopback = host === '127.0.0.1' || host === '::1' || host === 'localhost';
  if (!o.quiet) {
    io.err(`hsa env: ${rows.size} rows from ${files.length} file${files.length === 1 ? '' : 's'}; Open Reward Standard on ${server.url} (environment "hsa")\n`);
    io.err(
      loopback
        ? `hsa env: bound to ${server.host} only (this machine); --host 0.0.0.0 to serve others\n`
        : `hsa env: bound to ${server.host}: reachable from other machines, with no authentication\n`,
    );
  }
  if (o.json)
    io.out(
      `${JSON.stringify({ url: server.url, host: server.host, port: server.port, protocol: 'ors', env: 'hsa', rows: rows.size, files: files.length, tokenizer: counter.name })}\n`,
    );
  // A status line now and then while sessions come and go (none when nothing changed).
  let shown = 'hsa env: 0 sessions open, 0 started, 0 finished';
  const status = setInterval(() => {
    store.sweep();
    const line = `hsa env: ${store.active} sessions open, ${store.started} started, ${store.finished} finished`;
    if (line !== shown && !o.quiet) io.err(`${line}\n`);
    shown = line;
  }, 10_000);
  status.unref();
  const onSignal = () => stop();
  signals.on('SIGINT', onSignal);
  signals.on('SIGTERM', onSignal);
  await stopped;
  signals.off('SIGINT', onSignal);
  signals.off('SIGTERM', onSignal);
  if (idle) clearTimeout(idle);
  clearInterval(status);
  await server.close();
  store.clear();
  if (!o.quiet) io.err(`hsa env: stopped; ${store.started} sessions started, ${store.finished} finished\n`);
  return 0;
}
