// One JSON object per line on stdout/stderr: easy to ship, grep and parse. Never given secrets.
// Lines go through pino to asynchronous destinations, so a request never waits for a write syscall
// (nor blocks when the reader is slow); the lines of one event-loop turn leave in one write. What waits
// to be written is bounded (TRACELIGHT_LOG_BUFFER): past it, while the reader does not read or the writes
// fail (a full disk), lines are dropped and counted, and the log itself says how many once it is written again.
import type { HttpLogger } from '@tracelight/http-koa';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import { LogDestination } from './log-destination';

/** Where a line goes: the `stream` label of `tracelight_log_dropped_lines_total`. */
export type LogStream = 'stdout' | 'stderr';

// Node makes a piped stdout or stderr non-blocking when it first opens it (as it does anyway once a worker
// thread starts): a write to a full pipe then fails at once, and the destination tries again 100 ms later.
// A blocking one would hold a thread-pool thread, and the process's exit, until the reader reads.
void process.stdout;
void process.stderr;

/** pino's `isoTime`, formatting each millisecond once: under load many lines share one. */
let lastMs = -1;
let lastTime = '';
const isoTime = (): string => {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = `,"time":"${new Date(now).toISOString()}"`;
  }
  return lastTime;
};

/** `{"level":"info","time":"<ISO>","message":…,…fields}`: the line format this server always wrote. */
const LINE: LoggerOptions = {
  base: null, // no pid, no hostname
  timestamp: isoTime,
  formatters: { level: (label) => ({ level: label }) },
  messageKey: 'message',
};

/**
 * A line as pino writes it with LINE (same keys, same order, same escaping), built with one
 * JSON.stringify: every request writes one, and this costs a fraction of pino's per-key serialisation.
 * The message goes into the object first, so keys keep their order: level, time, message, fields.
 */
const jsonLine = (level: 'info' | 'warn', fields: Record<string, unknown>, message: string): string =>
  `{"level":"${level}"${isoTime()},${JSON.stringify({ message, ...fields }).slice(1)}\n`;

/** TRACELIGHT_LOG_BUFFER's default, until the configuration says otherwise. */
let bufferBytes = 16 * 1024 * 1024;
/** Where dropped lines are counted (/metrics), once the server has its metrics. */
let countDropped: (stream: LogStream, lines: number) => void = () => undefined;

/**
 * Collects the lines written during one event-loop turn and hands them to the (asynchronous) destination
 * together at the next `setImmediate`: under load that is one write for dozens of requests, and a lone
 * line (the "listening" one) still leaves at once. The destination holds at most `bufferBytes` not yet
 * written; a turn's lines that would go past it are dropped whole.
 */
class TurnBatch implements DestinationStream {
  private pending = '';
  private scheduled = false;
  /** Opened when the first line leaves, so that it takes the configured bound. */
  private destination: LogDestination | undefined;
  /** Lines dropped since the process started. */
  dropped = 0;

  constructor(
    readonly stream: LogStream,
    private readonly fd: 1 | 2,
  ) {}

  write(line: string): void {
    this.pending += line;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.handOver);
  }

  /** Gives the destination what this turn collected. */
  readonly handOver = (): void => {
    this.scheduled = false;
    if (this.pending === '') return;
    const lines = this.pending;
    this.pending = '';
    this.open().write(lines);
  };

  private open(): LogDestination {
    this.destination ??= new LogDestination({
      fd: this.fd,
      maxBytes: bufferBytes,
      dropped: (lines) => {
        this.dropped += lines;
        countDropped(this.stream, lines);
      },
      droppedNotice: (lines, why) => {
        const cause = why.notRead ? 'was not being read' : `could not be written (${why.code})`;
        const message = `dropped ${lines} log lines: ${this.stream} ${cause}, and more than TRACELIGHT_LOG_BUFFER waited to be written`;
        return jsonLine('warn', { stream: this.stream, dropped_lines: lines, ...(why.notRead ? {} : { write_error: why.code }) }, message);
      },
    });
    return this.destination;
  }

  /** Resolves once everything handed over has been written, or after `boundMs` (a stalled stream holds no exit). */
  written(boundMs: number): Promise<void> {
    this.handOver();
    return this.destination?.written(boundMs) ?? Promise.resolve();
  }

  /** Writes what is still held, synchronously, trying a write that fails again until `until`; what is left then is dropped. */
  flushSync(until: number): void {
    this.handOver();
    this.destination?.flushSync(until);
  }
}

const stdout = new TurnBatch('stdout', 1);
const stderr = new TurnBatch('stderr', 2);
const err = pino(LINE, stderr);
// An exit that did not flush (an uncaught exception; a worker thread's end) still writes what is held, as
// pino's own destinations would, but for at most the same bounded time.
process.on('exit', () => flushLogsSync());

export const jsonLogger: HttpLogger & { warn(fields: Record<string, unknown>, message: string): void } = {
  info: (fields, message) => stdout.write(jsonLine('info', fields, message)),
  // What went wrong with something a user set up (a scoring job that failed), not with the server: on stderr, as errors are.
  warn: (fields, message) => err.warn({ message, ...fields }),
  error: (fields, message) => err.error({ message, ...fields }),
};

/** TRACELIGHT_LOG_BUFFER: the most bytes each destination holds unwritten. Set before the first line is logged. */
export const limitLogBuffer = (bytes: number): void => {
  bufferBytes = bytes;
};

/** Lines other threads of this process (offload workers) dropped from their own destinations, by stream. */
const droppedElsewhere: Record<LogStream, number> = { stdout: 0, stderr: 0 };

/**
 * Counts dropped lines with `count`, from now on and those dropped so far (0 for a stream without any: its
 * series then exists), this thread's and those other threads reported (`droppedInAnotherThread`).
 */
export const countDroppedLogLines = (count: (stream: LogStream, lines: number) => void): void => {
  countDropped = count;
  for (const batch of [stdout, stderr]) count(batch.stream, batch.dropped + droppedElsewhere[batch.stream]);
};

/** Lines another thread of this process dropped (an offload worker writes through destinations of its own): counted as this thread's are. */
export const droppedInAnotherThread = (stream: LogStream, lines: number): void => {
  droppedElsewhere[stream] += lines;
  countDropped(stream, lines);
};

/**
 * Writes whatever is still buffered, synchronously: before an exit that cannot wait. A stream that stays
 * unwritable (a full pipe, a full disk) is tried for at most `boundMs`, all destinations together; its lines
 * left then are lost with the process.
 */
export const flushLogsSync = (boundMs = 1_000): void => {
  const until = Date.now() + boundMs;
  for (const batch of [stdout, stderr]) batch.flushSync(until);
};

/**
 * Waits (at most `boundMs`) for the writes already under way, then flushes the rest synchronously:
 * before a clean exit, so that no line is lost or cut.
 */
export const flushLogs = async (boundMs = 2_000): Promise<void> => {
  await Promise.all([stdout, stderr].map((batch) => batch.written(boundMs)));
  flushLogsSync();
};
