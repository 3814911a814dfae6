// The scoring workers of one process: claim due jobs (as many as there are free places), score each
// off the request thread, renew the leases of the jobs in hand, and stop without losing any (a job
// whose worker stops is claimed again after its lease). The same loop runs in the server and in the
// evaluator app.
import { type ClaimedJob, codeLogReason } from '@tracelight/domain';
import type { JobReport, ScoringJobs } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';

/** Where the workers log: one `warn` per job that ends failed or in error, never a secret. */
export interface ScoringLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

export interface ScoringWorkerOptions {
  /** Jobs worked on at once. */
  readonly concurrency: number;
  /** How long a claim holds a job; renewed every third of it while the job is worked on. */
  readonly leaseMs: number;
  /** How often idle workers look for jobs (wake() looks at once). */
  readonly pollMs: number;
  /** This process's name on its leases. */
  readonly owner: string;
}

/** The longest wait between looks while storage fails. */
const MAX_FAILURE_WAIT_MS = 30_000;

export class ScoringWorkerPool {
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  private loopDone: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private renewal: NodeJS.Timeout | undefined;
  private failures = 0;

  constructor(
    private readonly jobs: ScoringJobs,
    private readonly options: ScoringWorkerOptions,
    private readonly log: ScoringLog,
    /** Told of every job that finished (for metrics). */
    private readonly finished: (report: JobReport) => void = () => undefined,
  ) {}

  /** Jobs being worked on now. */
  get inFlight(): number {
    return this.running.size;
  }

  start(): void {
    if (this.loopDone !== undefined || this.options.concurrency <= 0) return;
    this.renewal = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.renewal.unref();
    this.loopDone = this.loop();
  }

  /** Looks for jobs now (this process just queued some, or a place just freed). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /**
   * No job is claimed after this; resolves once the jobs in hand are done, or after `graceMs` (those
   * still running then are left to their leases: claimed again once they run out, their attempt counted).
   */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopping = true;
    this.wake();
    await this.loopDone;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.running.values()), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
    clearInterval(this.renewal);
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const free = this.options.concurrency - this.running.size;
      let full = false;
      if (free > 0) {
        const claimed = await this.jobs.claim(this.options.owner, free, this.options.leaseMs)();
        if (E.isLeft(claimed)) {
          this.failures += 1;
          const waitMs = Math.min(MAX_FAILURE_WAIT_MS, this.options.pollMs * 2 ** this.failures);
          this.log.error({ error: claimed.left, retry_in_ms: waitMs }, 'scoring workers could not claim jobs; they look again later');
          await this.sleep(waitMs);
          continue;
        }
        this.failures = 0;
        for (const job of claimed.right) this.work(job);
        // All it asked for: more may be due, and there may be places for them.
        full = claimed.right.length === free;
        if (full && this.running.size < this.options.concurrency) continue;
      }
      await this.sleep(this.options.pollMs);
    }
  }

  private work(job: ClaimedJob): void {
    const done = this.jobs
      .run(job)
      .then((report) => this.report(report))
      .catch((e: unknown) => this.log.error({ ...fieldsOf(job), error: e instanceof Error ? e.message : String(e) }, 'a scoring job failed unexpectedly; it is claimed again after its lease'))
      .finally(() => {
        this.running.delete(job.id);
        // A place is free: look for the next job without waiting for the poll.
        this.wake();
      });
    this.running.set(job.id, done);
  }

  private report(report: JobReport): void {
    const { job, outcome } = report;
    if (report.storageError !== undefined) {
      this.log.error({ ...fieldsOf(job), state: outcome.state, error: report.storageError }, 'a scoring outcome could not be stored; the job is claimed again after its lease');
      return;
    }
    if (!report.stored) {
      this.log.info({ ...fieldsOf(job) }, 'a scoring job was taken over by another worker (its lease ran out): its outcome is that worker\'s to store');
      return;
    }
    // Once per job: only the final outcome of a job is failed or error; retries are not logged as such.
    if (outcome.state === 'failed' || outcome.state === 'error')
      this.log.warn({ ...fieldsOf(job), state: outcome.state, reason: job.kind === 'code' ? codeLogReason(outcome.message) : outcome.message }, `scoring job ${outcome.state}`);
    this.finished(report);
  }

  private async renew(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0) return;
    const renewed = await this.jobs.renew(this.options.owner, ids, this.options.leaseMs)();
    if (E.isLeft(renewed)) this.log.error({ error: renewed.left, jobs: ids.length }, 'scoring leases could not be renewed; they are tried again shortly');
  }

  /** Waits `ms`, or less when woken. */
  private sleep(ms: number): Promise<void> {
    if (this.woken || this.stopping) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeUp = undefined;
        self.woken = false;
        resolve();
      }
      this.wakeUp = done;
    });
  }
}

/** What a job's log line says of it: ids and names, no record content, no secret. */
const fieldsOf = (job: ClaimedJob) => ({
  job_id: job.id,
  run_id: job.runId,
  project_id: job.projectId,
  record_id: job.recordId,
  scorer_id: job.scorerId,
  metric: job.metricName,
  version: job.version,
  attempts: job.attempts,
});
