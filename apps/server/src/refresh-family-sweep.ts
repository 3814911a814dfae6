// The removal of ended sessions' refresh families: on start and every hour after, those whose session
// ended longer ago than an access token lives are removed a batch at a time (each batch a short write of
// its own), so that one row per sign-in does not accumulate for good.
import type { HttpLogger } from '@tracelight/http-koa';
import type { IdentityUseCases } from '@tracelight/use-cases';
import { type PassOutcome, Repeating, runBatches } from './repeating';

export interface RefreshFamilySweepOptions {
  /** Families removed per write. */
  readonly batch?: number;
  /** Time between the end of one sweep and the start of the next. */
  readonly everyMs?: number;
}

const DEFAULT_BATCH = 1_000;
const HOUR_MS = 3_600_000;

export class RefreshFamilySweep {
  private readonly loop: Repeating;

  constructor(
    private readonly identity: IdentityUseCases,
    private readonly logger: HttpLogger,
    private readonly options: RefreshFamilySweepOptions = {},
  ) {
    this.loop = new Repeating(() => this.sweep(), options.everyMs ?? HOUR_MS);
  }

  /** Sweeps now, then `everyMs` after each sweep ends. */
  start(): void {
    this.loop.start();
  }

  /** No batch starts after this; resolves once the batch under way (if any) is done. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async sweep(): Promise<PassOutcome> {
    let removed = 0;
    const end = await runBatches(
      this.loop,
      () => this.identity.removeEndedFamilies(this.options.batch ?? DEFAULT_BATCH),
      (batch) => {
        removed += batch.removed;
      },
      (error) => this.logger.error({ error, removed, retry_in_ms: this.loop.retryInMs }, 'removal of ended sessions stopped early; the next one goes on'),
    );
    if (end === 'failed') return 'failed';
    if (removed > 0) this.logger.info({ removed }, 'removed the refresh families of ended sessions');
    return 'done';
  }
}
