/** Where a command writes. The CLI passes the process streams; tests pass buffers. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is an interactive terminal (live progress). */
  errIsTty: boolean;
}

/**
 * A process stream that a reader may close early (`hsa validate … | head -1`): once it is closed
 * (EPIPE), what is left to write is dropped and the command ends as usual, with no stack trace.
 * Any other write error still surfaces.
 */
function closable(stream: NodeJS.WriteStream): (text: string) => void {
  let closed = false;
  let listening = false;
  return (text) => {
    if (closed) return;
    if (!listening) {
      listening = true;
      stream.on('error', (e: NodeJS.ErrnoException) => {
        if (e.code !== 'EPIPE') throw e;
        closed = true;
      });
    }
    stream.write(text);
  };
}

export const processIo: Io = {
  out: closable(process.stdout),
  err: closable(process.stderr),
  errIsTty: Boolean(process.stderr.isTTY),
};

export function bufferIo(): Io & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    errIsTty: false,
    out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
  };
  return io;
}
