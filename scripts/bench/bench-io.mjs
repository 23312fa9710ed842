// How the pass-through and the floor (passthrough.mjs, fixture-floor.mjs) read and write JSONL:
// read in large chunks, split on '\n' by hand, each line decoded on its own; written into a reused
// buffer that is sha256'd and flushed to the output file.
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';

const IN_CHUNK = 4 << 20;

/** The first `n` non-blank lines of `file`, read in chunks (the input may be larger than a string can hold). */
export function firstLines(file, n) {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 22);
  const lines = [];
  let rest = '';
  try {
    for (let got; lines.length < n && (got = readSync(fd, buf, 0, buf.length, null)) > 0;) {
      const parts = (rest + buf.toString('utf8', 0, got)).split('\n');
      rest = parts.pop();
      for (const l of parts) if (l.trim() !== '' && lines.length < n) lines.push(l);
    }
  } finally {
    closeSync(fd);
  }
  if (lines.length < n && rest.trim() !== '') lines.push(rest);
  return lines;
}

/**
 * A floor's measured loop: `handle(line, sink)` for every line of `input`, written to `output`;
 * wall and CPU seconds from inside the process, as passthrough.mjs measures them.
 */
export function timedLoop(input, output, handle) {
  const t0 = process.hrtime.bigint();
  const c0 = process.cpuUsage();
  const sink = new OutputSink(output);
  const bytesIn = forEachLine(input, (line) => handle(line, sink));
  sink.close();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  const c1 = process.cpuUsage(c0);
  return { bytes_in: bytesIn, bytes_out: sink.bytesOut, seconds, cpu_seconds: (c1.user + c1.system) / 1e6 };
}

/** Calls `handle(line)` for every non-empty line of `file`, in order; returns the bytes read. */
export function forEachLine(file, handle) {
  const fin = openSync(file, 'r');
  let inBuf = Buffer.allocUnsafe(IN_CHUNK);
  let end = 0; // bytes of inBuf holding data
  let bytesIn = 0;
  for (;;) {
    if (end === inBuf.length) {
      // one line longer than the buffer: grow it
      const bigger = Buffer.allocUnsafe(inBuf.length * 2);
      inBuf.copy(bigger, 0, 0, end);
      inBuf = bigger;
    }
    const n = readSync(fin, inBuf, end, inBuf.length - end, null);
    if (n === 0) break;
    bytesIn += n;
    end += n;
    const view = inBuf.subarray(0, end);
    let start = 0;
    let nl;
    while ((nl = view.indexOf(10, start)) !== -1) {
      if (nl > start) handle(view.toString('utf8', start, nl));
      start = nl + 1;
    }
    if (start > 0) {
      inBuf.copy(inBuf, 0, start, end);
      end -= start;
    }
  }
  if (end > 0) handle(inBuf.toString('utf8', 0, end));
  closeSync(fin);
  return bytesIn;
}

/** Output bytes through one reused buffer, sha256'd as they are flushed. */
export class OutputSink {
  constructor(file, chunk = 8 << 20) {
    this.fd = openSync(file, 'w');
    this.hash = createHash('sha256');
    this.buf = Buffer.allocUnsafe(chunk);
    this.pos = 0;
    this.bytesOut = 0;
  }

  /** Room for `need` more bytes: flushes first when short of it (a buffer too small for them is replaced). */
  reserve(need) {
    if (this.pos + need > this.buf.length) {
      this.flush();
      if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need);
    }
  }

  /** Text as UTF-8 (after `reserve`, or with room checked here). */
  text(s) {
    this.reserve(s.length * 3); // the most UTF-8 bytes a UTF-16 string can take
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(b) {
    this.reserve(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
  }

  newline() {
    this.reserve(1);
    this.buf[this.pos++] = 10;
  }

  flush() {
    if (this.pos === 0) return;
    const view = this.buf.subarray(0, this.pos);
    this.hash.update(view);
    let off = 0;
    while (off < this.pos) off += writeSync(this.fd, view, off, this.pos - off);
    this.bytesOut += this.pos;
    this.pos = 0;
  }

  /** Flushes and closes; returns the sha256 of everything written. */
  close() {
    this.flush();
    closeSync(this.fd);
    return this.hash.digest('hex');
  }
}
