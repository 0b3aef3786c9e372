import { closeSync, openSync, writeSync } from 'node:fs';

/** How long written text may wait in memory before it goes to the file. */
const FLUSH_MS = 50;
/** Past this much waiting text, it goes at once. */
const FLUSH_BYTES = 1 << 16;

/**
 * Writes all of `text` at the file's current end. It is written as text:
 * a copy as bytes would double a big line in memory; only a short write (a
 * nearly full disk) needs the bytes, to go on from where it stopped. Throws
 * what the system call throws, with part of the text possibly written.
 */
export function writeAllSync(fd: number, text: string): void {
  const size = Buffer.byteLength(text);
  let off = writeSync(fd, text);
  if (off < size)
    for (const bytes = Buffer.from(text, 'utf8'); off < size;) off += writeSync(fd, bytes, off);
}

/**
 * A file that lines are appended to, in batches: text waits in memory and is
 * written with one system call every 50 ms (or once 64 KB wait), instead of
 * one asynchronous write per line. At fan-out a run appends a few lines per
 * step, and a thread-pool round trip per line cost more than the step's own
 * bookkeeping (docs/benchmarks.md). The file is opened on the first write.
 * A failure is handed to `onError` once and the file is given up.
 */
export class AppendFile {
  private fd: number | undefined;
  private pending: string[] = [];
  private pendingBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Set once the file failed or was closed: later text is dropped. */
  private done = false;

  constructor(
    readonly path: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Queues `text`; it reaches the file within 50 ms, or at `close()`. */
  write(text: string): void {
    if (this.done) return;
    this.pending.push(text);
    this.pendingBytes += text.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS).unref();
  }

  /** Writes what waits, now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.done || this.pending.length === 0) return;
    const text = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    try {
      this.fd ??= openSync(this.path, 'a');
      writeAllSync(this.fd, text);
    } catch (err) {
      this.done = true;
      this.onError(err);
    }
  }

  /** Writes what waits and closes the file; never throws. */
  close(): void {
    this.flush();
    this.done = true;
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Nothing left to lose: every byte was written or reported.
    }
    this.fd = undefined;
  }
}
