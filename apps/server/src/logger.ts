// One JSON object per line on stdout/stderr: easy to ship, grep and parse. Never given secrets.
// Lines go through pino to asynchronous destinations, so a request never waits for a write syscall
// (nor blocks when the reader is slow); the lines of one event-loop turn leave in one write.
import type { HttpLogger } from '@tracelight/http-koa';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';

type Destination = ReturnType<typeof pino.destination>;

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
 * Collects the lines written during one event-loop turn and hands them to the (asynchronous) destination
 * together at the next `setImmediate`: under load that is one write for dozens of requests, and a lone
 * line (the "listening" one) still leaves at once.
 */
class TurnBatch implements DestinationStream {
  private pending = '';
  private scheduled = false;

  constructor(readonly destination: Destination) {}

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
    this.destination.write(lines);
  };
}

const stdout = new TurnBatch(pino.destination({ dest: 1, sync: false }));
const stderr = new TurnBatch(pino.destination({ dest: 2, sync: false }));
const err = pino(LINE, stderr);

/**
 * An info line as pino writes it with LINE (same keys, same order, same escaping), built with one
 * JSON.stringify: every request writes one, and this costs a fraction of pino's per-key serialisation.
 * The message goes into the object first, so keys keep their order: level, time, message, fields.
 */
const infoLine = (fields: Record<string, unknown>, message: string): string =>
  `{"level":"info"${isoTime()},${JSON.stringify({ message, ...fields }).slice(1)}\n`;

export const jsonLogger: HttpLogger = {
  info: (fields, message) => stdout.write(infoLine(fields, message)),
  error: (fields, message) => err.error({ message, ...fields }),
};

/** Writes whatever is still buffered, synchronously: before an exit that cannot wait. */
export const flushLogsSync = (): void => {
  for (const batch of [stdout, stderr]) {
    try {
      batch.handOver();
      batch.destination.flushSync();
    } catch {
      /* nowhere left to report it */
    }
  }
};

/**
 * Waits (at most `boundMs`) for the writes already under way, then flushes the rest synchronously:
 * before a clean exit, so that no line is lost or cut. An empty write queues behind the others, and
 * the destination says `drain` once everything handed to it has been written.
 */
export const flushLogs = async (boundMs = 2_000): Promise<void> => {
  await Promise.all(
    [stdout, stderr].map(
      (batch) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, boundMs);
          batch.destination.once('drain', () => {
            clearTimeout(timer);
            resolve();
          });
          batch.handOver();
          batch.destination.write('');
        }),
    ),
  );
  flushLogsSync();
};
