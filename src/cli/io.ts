/** Where a command writes. The CLI passes the process streams; tests pass buffers. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is an interactive terminal (live progress). */
  errIsTty: boolean;
}

export const processIo: Io = {
  out: (t) => void process.stdout.write(t),
  err: (t) => void process.stderr.write(t),
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
