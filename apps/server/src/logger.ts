// One JSON object per line on stdout/stderr: easy to ship, grep and parse. Never given secrets.
// Lines go through pino to asynchronous destinations, so a request never waits for a write syscall
// (nor blocks when the reader is slow); the lines of one event-loop turn leave in one write. What waits
// to be written is bounded (TRACELIGHT_LOG_BUFFER): past it, while the reader does not read, lines are
// dropped and counted, and the log itself says how many once it is read again.
import type { HttpLogger } from '@tracelight/http-koa';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';

type Destination = ReturnType<typeof pino.destination>;

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

const linesIn = (text: string): number => {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  return lines;
};

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
  private destination: Destination | undefined;
  /** Lines dropped since the destination last had everything written: said in one line once it has. */
  private droppedSinceDrain = 0;
  /** Lines dropped since the process started. */
  dropped = 0;
  /**
   * Until when a synchronous flush tries a full pipe again. Asynchronous writes try until the reader reads
   * (newer lines are dropped meanwhile); a flush before an exit must not wait for it for good.
   */
  private flushUntil = Infinity;

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

  private open(): Destination {
    if (this.destination !== undefined) return this.destination;
    const destination = pino.destination({
      dest: this.fd,
      sync: false,
      maxLength: bufferBytes,
      retryEAGAIN: () => Date.now() < this.flushUntil,
    });
    destination.on('drop', (lines: string) => {
      const count = linesIn(lines);
      this.dropped += count;
      this.droppedSinceDrain += count;
      countDropped(this.stream, count);
    });
    destination.on('drain', () => {
      if (this.droppedSinceDrain === 0) return;
      const lines = this.droppedSinceDrain;
      this.droppedSinceDrain = 0;
      const message = `dropped ${lines} log lines: ${this.stream} was not being read, and more than TRACELIGHT_LOG_BUFFER waited to be written`;
      destination.write(jsonLine('warn', { stream: this.stream, dropped_lines: lines }, message));
    });
    this.destination = destination;
    return destination;
  }

  /** Resolves once everything handed over has been written, or after `boundMs` (a stalled reader holds no exit). */
  written(boundMs: number): Promise<void> {
    this.handOver();
    const destination = this.destination;
    if (destination === undefined) return Promise.resolve();
    // An empty write queues behind the others, and the destination says `drain` once all are written.
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, boundMs);
      destination.once('drain', () => {
        clearTimeout(timer);
        resolve();
      });
      destination.write('');
    });
  }

  /**
   * Writes what is still buffered, synchronously, trying a full pipe again until `until`. What is left then
   * is given up with the destination: pino flushes each destination again as the process exits, and would
   * try a full pipe for good, but leaves a destroyed one alone.
   */
  flushSync(until: number): void {
    this.flushUntil = until;
    try {
      this.handOver();
      this.destination?.flushSync();
    } catch {
      this.destination?.destroy();
    } finally {
      this.flushUntil = Infinity;
    }
  }
}

const stdout = new TurnBatch('stdout', 1);
const stderr = new TurnBatch('stderr', 2);
const err = pino(LINE, stderr);

export const jsonLogger: HttpLogger = {
  info: (fields, message) => stdout.write(jsonLine('info', fields, message)),
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
 * Writes whatever is still buffered, synchronously: before an exit that cannot wait. A pipe that stays full
 * is tried for at most `boundMs`, all destinations together; its lines left then are lost with the process.
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
