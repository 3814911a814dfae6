// The retention sweep (TRACELIGHT_RETENTION_DAYS): on start and every hour after, old records are
// removed batch by batch, each batch a short write of its own, so ingestion goes on between them.
import type { HttpLogger } from '@tracelight/http-koa';
import type { RetentionUseCases } from '@tracelight/use-cases';
import { type PassOutcome, Repeating, runBatches } from './repeating';

export interface RetentionOptions {
  readonly keepDays: number;
  /** Records removed per write. */
  readonly batch?: number;
  /** Time between the end of one sweep and the start of the next. */
  readonly everyMs?: number;
}

const DEFAULT_BATCH = 2_000;
const HOUR_MS = 3_600_000;

export class RetentionSweep {
  private readonly loop: Repeating;

  constructor(
    private readonly retention: RetentionUseCases,
    private readonly logger: HttpLogger,
    private readonly onRemoved: (count: number) => void,
    private readonly options: RetentionOptions,
  ) {
    this.loop = new Repeating(() => this.sweep(), options.everyMs ?? HOUR_MS);
  }

  /** Sweeps now, then `everyMs` after each sweep ends. */
  start(): void {
    if (this.options.keepDays > 0) this.loop.start();
  }

  /** No batch starts after this; resolves once the batch under way (if any) is done. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async sweep(): Promise<PassOutcome> {
    const began = Date.now();
    let removed = 0;
    let cutoff: Date | undefined;
    const end = await runBatches(
      this.loop,
      () => this.retention.expireBatch(this.options.keepDays, this.options.batch ?? DEFAULT_BATCH),
      (batch) => {
        cutoff = batch.cutoff;
        removed += batch.removed;
        if (batch.removed > 0) this.onRemoved(batch.removed);
      },
      // Storage unavailable or full: the next sweep tries again; what this one removed stays removed.
      (error) => this.logger.error({ error, removed, retry_in_ms: this.loop.retryInMs }, 'retention sweep stopped early; the next one goes on'),
    );
    if (end === 'failed') return 'failed';
    // complete false: the server is stopping, and the next start goes on from here.
    if (removed > 0 && cutoff !== undefined)
      this.logger.info({ removed, cutoff: cutoff.toISOString(), complete: end === 'done', ms: Date.now() - began }, 'retention sweep removed old records');
    return 'done';
  }
}
