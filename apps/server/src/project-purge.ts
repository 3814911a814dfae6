// The purge of deleted projects: a deleted project is retired at once (the DELETE is answered then), and
// what it held is removed here, in the background, a step at a time (ProjectUseCases.purge), so that
// other writes go between the steps. It looks for retired projects on start (a purge cut short by a
// stop, a crash or an admin CLI killed midway goes on) and every `everyMs` (1 s) after each pass: one
// read of an index of the few retired projects, so a deletion, whichever process made it, is purged
// within a second. A failing purge is tried again after growing waits (Repeating), up to a minute.
import type { ProjectId } from '@tracelight/domain';
import type { HttpLogger } from '@tracelight/http-koa';
import type { ProjectUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import { type PassOutcome, Repeating } from './repeating';

export interface ProjectPurgeOptions {
  /** Time between the end of one pass and the next look for retired projects. */
  readonly everyMs?: number;
  /** The longest wait after failing passes (a minute). */
  readonly maxWaitMs?: number;
}

/** Retired projects read in one look. */
const LOOK = 100;

export class ProjectPurge {
  private readonly loop: Repeating;

  constructor(
    private readonly projects: ProjectUseCases,
    private readonly logger: HttpLogger,
    /** Told of the records each step removed. */
    private readonly onPurged: (records: number) => void,
    options: ProjectPurgeOptions = {},
  ) {
    this.loop = new Repeating(() => this.pass(), options.everyMs ?? 1_000, options.maxWaitMs);
  }

  /** Purges what is retired now, then looks again `everyMs` after each pass ends. */
  start(): void {
    this.loop.start();
  }

  /** No step starts after this; resolves once the step under way (if any) is done. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async pass(): Promise<PassOutcome> {
    const retired = await this.projects.retired(LOOK)();
    if (E.isLeft(retired)) {
      this.logger.error({ error: retired.left, retry_in_ms: this.loop.retryInMs }, 'could not look for deleted projects to purge; the next look tries again');
      return 'failed';
    }
    // Each is tried, whatever became of the ones before: one whose purge keeps failing does not hold up the others.
    let outcome: PassOutcome = 'done';
    for (const id of retired.right) {
      if (this.loop.stopped) break;
      if ((await this.purge(id)) === 'failed') outcome = 'failed';
    }
    return outcome;
  }

  private async purge(id: ProjectId): Promise<PassOutcome> {
    const began = Date.now();
    const purged = await this.projects.purge(id, {
      stop: () => this.loop.stopped,
      // A turn of the event loop between steps: requests waiting on this thread go first.
      pause: () => new Promise((resolve) => setImmediate(resolve)),
      onStep: ({ records }) => {
        if (records > 0) this.onPurged(records);
      },
    })();
    if (E.isLeft(purged)) {
      // Storage unavailable or full: the next look goes on from where this one stopped.
      this.logger.error(
        { error: purged.left, project_id: id, retry_in_ms: this.loop.retryInMs },
        'purge of a deleted project stopped early; the next look goes on',
      );
      return 'failed';
    }
    const { runs, records, finished } = purged.right;
    this.logger.info({ project_id: id, runs, records, finished, ms: Date.now() - began }, finished ? 'deleted project purged' : 'purge of a deleted project paused: the next start goes on');
    return 'done';
  }
}
