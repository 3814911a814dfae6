// Writes log text to a file descriptor (stdout, stderr) asynchronously, holding at most a bound of it unwritten,
// and never failing nor waiting for good, whatever the descriptor answers: a full pipe, a full disk, an I/O error.
import * as fs from 'node:fs';

/** How long a write that failed waits before it is tried again: a full pipe (EAGAIN), a full disk (ENOSPC), EIO… */
const RETRY_MS = 100;
/** How long a synchronous flush sleeps between tries of a write that failed. */
const FLUSH_RETRY_MS = 10;
/** The most bytes one write takes: waiting lines are joined up to it, so that a backlog leaves in few writes. */
const MAX_WRITE = 64 * 1024;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Blocks this thread for `ms`: only a flush before an exit, which cannot wait on the event loop, does. */
const sleepSync = (ms: number): void => void Atomics.wait(sleeper, 0, 0, ms);

const linesIn = (text: string): number => {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
};

const linesInBuffer = (bytes: Buffer): number => {
  let lines = 0;
  for (let at = bytes.indexOf(10); at !== -1; at = bytes.indexOf(10, at + 1)) lines++;
  return lines;
};

/** Why lines were dropped: the reader did not read (a full pipe), or the writes failed with this error code. */
export type DropReason = { readonly notRead: true } | { readonly notRead: false; readonly code: string };

export interface LogDestinationOptions {
  readonly fd: number;
  /** The most bytes held unwritten; text that would go past it is dropped. */
  readonly maxBytes: number;
  /** Text was dropped: `lines` lines of it. */
  readonly dropped: (lines: number) => void;
  /** The line that says, once everything waiting has been written, that `lines` were dropped before, and why. */
  readonly droppedNotice: (lines: number, why: DropReason) => string;
}

/**
 * One write in flight at a time. A write that fails is tried again `RETRY_MS` later, whatever the error, as
 * long as it fails (the lines written meanwhile wait, up to `maxBytes`, and past it are dropped); EPIPE alone
 * ends the writing for good (nothing will ever read): what is written after it is discarded.
 * Node's own `fs.write` callbacks: never an `error` event that would throw where nobody listens.
 */
export class LogDestination {
  /** Text waiting, not yet taken into `writing`. */
  private readonly waiting: string[] = [];
  /** Bytes waiting or being written. */
  private bytes = 0;
  /** What the write in flight (or the next try) writes: taken from `waiting`, what is left of it after a short write. */
  private writing: Buffer | undefined;
  private inFlight = false;
  private retry: NodeJS.Timeout | undefined;
  /** The code of the error the last write failed with, until one succeeds. */
  private failure: string | undefined;
  /** EPIPE: whatever read this descriptor is gone. */
  private broken = false;
  /** Lines dropped since everything waiting was last written, and why the last of them was. */
  private droppedSinceWritten = 0;
  private dropReason: DropReason = { notRead: true };
  /** Called once everything waiting is written. */
  private readonly whenWritten = new Set<() => void>();

  constructor(private readonly options: LogDestinationOptions) {}

  /** Holds `text` to be written, or drops it whole if it would take the bytes held past the bound. */
  write(text: string): void {
    if (this.broken || text === '') return;
    const size = Buffer.byteLength(text);
    if (this.bytes + size > this.options.maxBytes) {
      const lines = linesIn(text);
      this.droppedSinceWritten += lines;
      this.dropReason = this.failure === undefined || this.failure === 'EAGAIN' ? { notRead: true } : { notRead: false, code: this.failure };
      this.options.dropped(lines);
      // Nothing else held (a piece larger than the bound alone): the notice leaves at once.
      return this.pump();
    }
    this.waiting.push(text);
    this.bytes += size;
    this.pump();
  }

  /** Resolves once everything held now has been written, or after `boundMs`: a stalled descriptor holds no one for good. */
  written(boundMs: number): Promise<void> {
    if (this.bytes === 0 || this.broken) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.whenWritten.delete(done);
        resolve();
      };
      const timer = setTimeout(done, boundMs);
      this.whenWritten.add(done);
    });
  }

  /**
   * Writes what is held, synchronously, trying a write that fails (a full pipe, a full disk) again until
   * `until`; what is left then is given up. A write already in flight is left to finish on its own.
   */
  flushSync(until: number): void {
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    let buffer = this.inFlight ? undefined : this.writing;
    if (!this.inFlight) this.writing = undefined;
    while (!this.broken) {
      if (buffer === undefined || buffer.length === 0) {
        if (this.waiting.length === 0) break;
        buffer = this.take();
      }
      try {
        const n = fs.writeSync(this.options.fd, buffer);
        this.bytes -= n;
        buffer = buffer.subarray(n);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
        if (code === 'EPIPE') {
          this.breakOff();
          buffer = undefined;
        } else if (Date.now() >= until) break;
        else sleepSync(Math.min(FLUSH_RETRY_MS, until - Date.now()));
      }
    }
    // Given up (the process is about to exit): counted as dropped, and not tried again.
    const lines = this.waiting.reduce((sum, text) => sum + linesIn(text), 0) + (buffer === undefined ? 0 : linesInBuffer(buffer));
    this.waiting.length = 0;
    this.bytes = this.inFlight ? (this.writing?.length ?? 0) : 0;
    if (lines > 0) this.options.dropped(lines);
  }

  /** The next write: waiting text joined, up to MAX_WRITE bytes (at least one piece, however large). */
  private take(): Buffer {
    let count = 1;
    let size = this.waiting[0]!.length;
    while (count < this.waiting.length && size + this.waiting[count]!.length <= MAX_WRITE) size += this.waiting[count++]!.length;
    const text = count === 1 ? this.waiting[0]! : this.waiting.slice(0, count).join('');
    this.waiting.splice(0, count);
    return Buffer.from(text);
  }

  private pump(): void {
    if (this.inFlight || this.retry !== undefined || this.broken) return;
    if (this.writing === undefined) {
      if (this.waiting.length === 0) return this.allWritten();
      this.writing = this.take();
    }
    this.inFlight = true;
    fs.write(this.options.fd, this.writing, 0, this.writing.length, null, this.wrote);
  }

  private readonly wrote = (error: NodeJS.ErrnoException | null, n: number): void => {
    this.inFlight = false;
    if (error) {
      if (error.code === 'EPIPE') return this.breakOff();
      this.failure = error.code ?? 'EIO';
      this.retry = setTimeout(() => {
        this.retry = undefined;
        this.pump();
      }, RETRY_MS);
      // A stream that cannot be written holds no exit: the exit's flush gives it its last, bounded, tries.
      this.retry.unref();
      return;
    }
    this.failure = undefined;
    this.bytes -= n;
    const left = this.writing?.subarray(n);
    this.writing = left === undefined || left.length === 0 ? undefined : left;
    this.pump();
  };

  /** Everything held is written: says how many lines were dropped before, if any were, and lets waiters go. */
  private allWritten(): void {
    if (this.droppedSinceWritten > 0) {
      const lines = this.droppedSinceWritten;
      this.droppedSinceWritten = 0;
      return this.write(this.options.droppedNotice(lines, this.dropReason));
    }
    for (const done of [...this.whenWritten]) done();
  }

  /** EPIPE: nothing will read what is written, now or later; it is discarded, as pino's destinations do. */
  private breakOff(): void {
    this.broken = true;
    this.waiting.length = 0;
    this.writing = undefined;
    this.bytes = 0;
    for (const done of [...this.whenWritten]) done();
  }
}
