// A background job of the server: a pass now, then another `everyMs` after each pass ends, until
// stopped; a stop lets the pass under way finish what it is doing (each pass asks `stopped` between its
// steps) and resolves then. The retention sweep, the removal of ended refresh families and the purge of
// deleted projects run so; the two sweeps' passes are batches in a row (`runBatches`).
//
// A pass that fails (storage unavailable, a full disk) says so, and the wait before the next one doubles
// with each failure in a row, up to `maxWaitMs` (a minute, or `everyMs` when that is longer), so a job
// that runs every second does not retry, and log its failure, every second for as long as the outage
// lasts; the first pass that does its work brings the wait back to `everyMs`.
import * as E from 'fp-ts/Either';
import type { TaskEither } from 'fp-ts/TaskEither';

/** What a pass says of itself: `failed` makes the next wait longer. */
export type PassOutcome = 'done' | 'failed';

/** The longest wait between failing passes, unless `everyMs` is longer. */
const MAX_BACKOFF_MS = 60_000;

export class Repeating {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private halted = false;
  private failures = 0;
  private readonly maxWaitMs: number;

  constructor(
    private readonly pass: () => Promise<PassOutcome>,
    private readonly everyMs: number,
    maxWaitMs = MAX_BACKOFF_MS,
  ) {
    this.maxWaitMs = Math.max(everyMs, maxWaitMs);
  }

  /** Whether `stop` was called: a pass stops between its steps. */
  get stopped(): boolean {
    return this.halted;
  }

  /** The wait that follows if the pass under way fails: for its failure's log line. */
  get retryInMs(): number {
    return this.waitAfter(this.failures + 1);
  }

  /** A pass now (unless one is under way), then `everyMs` after each pass ends (longer after failures). */
  start(): void {
    if (this.halted || this.running) return;
    this.running = this.pass()
      .then((outcome) => {
        this.failures = outcome === 'failed' ? this.failures + 1 : 0;
      })
      .finally(() => {
        this.running = undefined;
        if (!this.halted) this.timer = setTimeout(() => this.start(), this.waitAfter(this.failures)).unref();
      });
  }

  /** No pass or step starts after this; resolves once the one under way (if any) is done. */
  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  private waitAfter(failures: number): number {
    // 2^failures overflows to Infinity long after the cap is reached; min() keeps the cap.
    return failures === 0 ? this.everyMs : Math.min(this.maxWaitMs, this.everyMs * 2 ** failures);
  }
}

/** How a run of batches ended: a batch said it was the last (`done`), the loop was stopped first, or a batch failed. */
export type BatchesEnd = 'done' | 'stopped' | 'failed';

/**
 * A pass made of batches, each a short write of its own: `batch()` again until one says it is `done` or
 * `loop` is stopped, with a turn of the event loop between two (requests waiting on this thread go
 * first). `took` is told of each batch; one that fails ends the run, `failed` told of its error.
 */
export const runBatches = async <Err, Batch extends { readonly done: boolean }>(
  loop: { readonly stopped: boolean },
  batch: () => TaskEither<Err, Batch>,
  took: (batch: Batch) => void,
  failed: (error: Err) => void,
): Promise<BatchesEnd> => {
  while (!loop.stopped) {
    const result = await batch()();
    if (E.isLeft(result)) {
      failed(result.left);
      return 'failed';
    }
    took(result.right);
    if (result.right.done) return 'done';
    await new Promise((resolve) => setImmediate(resolve));
  }
  return 'stopped';
};
