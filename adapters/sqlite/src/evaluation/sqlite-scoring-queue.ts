// The scoring queue on SQLite: jobs in scoring_jobs, claimed by one UPDATE under the write lock (so two
// processes never hold one job), finished in one transaction with the record's entry and roll-ups.
import {
  type ClaimedJob,
  type JobCounts,
  type JobOutcome,
  type JobState,
  type MetricInfo,
  type NewScoringJob,
  type RollUpSpec,
  type RunId,
  type ScorerId,
  type ScorerVersionKind,
  type UserId,
  type ProjectId,
  type MetricValue,
  picksValue,
  rollUpInfo,
  rollUpTargets,
  rollUpValue,
  takesRollUp,
  zeroCounts,
} from '@tracelight/domain';
import type { Result, ScoringQueue } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import { inject, injectable } from 'inversify';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { type JobWrites, metricPath, prepareJobWrites } from './scoring-jobs.sql';

interface ClaimedRow {
  id: number;
  run_id: string;
  project_id: string;
  record_id: string;
  trace_key: string;
  scorer_id: string;
  version: number;
  kind: string;
  metric_name: string;
  owner_id: string;
  attempts: number;
  lease_owner: string;
}

const claimedJob = (r: ClaimedRow): ClaimedJob => ({
  id: String(r.id),
  runId: r.run_id as RunId,
  projectId: r.project_id as ProjectId,
  recordId: r.record_id,
  traceId: r.trace_key === '' ? null : r.trace_key,
  scorerId: r.scorer_id as ScorerId,
  version: r.version,
  kind: r.kind as ScorerVersionKind,
  metricName: r.metric_name,
  ownerId: r.owner_id as UserId,
  attempts: r.attempts,
  leaseOwner: r.lease_owner,
});

/** The value's JSON (what `metrics` holds for the metric), or null for an outcome without one. */
const valueJson = (info: MetricInfo): string | null =>
  info.status_type === 'success' && info.value !== undefined && info.value !== null ? JSON.stringify(info.value) : null;

@injectable()
export class SqliteScoringQueue implements ScoringQueue {
  private readonly jobs: JobWrites;
  private readonly claimDue;
  private readonly renewHeld;
  private readonly finish;
  private readonly putBack;
  private readonly writeEntry;
  private readonly markPresent;
  private readonly rollUpOfTrace;
  private readonly rollUpOfSession;
  private readonly entryOf;
  private readonly writeRollUp;
  private readonly removeRollUp;
  private readonly countByState;
  private readonly lastError;
  private readonly depthByState;
  private readonly completeAll: Database.Transaction<(job: ClaimedJob, outcome: JobOutcome, now: number, rollUp: RollUpSpec | null) => boolean>;
  private readonly requeueAll: Database.Transaction<(jobs: ReadonlyArray<NewScoringJob>, now: number) => number>;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.jobs = prepareJobWrites(db);
    // One statement: SQLite runs it under the write lock, so of any number of claims (threads, processes)
    // each job goes to one. The oldest due first; a computing job's due_at is the end of its lease.
    this.claimDue = db.prepare(
      `UPDATE scoring_jobs SET state = 'computing', lease_owner = @owner, due_at = @until, attempts = attempts + 1, updated_at = @now
       WHERE id IN (SELECT id FROM scoring_jobs WHERE due_at IS NOT NULL AND due_at <= @now ORDER BY due_at, id LIMIT @limit)
       RETURNING id, run_id, project_id, record_id, trace_key, scorer_id, version, kind, metric_name, owner_id, attempts, lease_owner`,
    );
    this.renewHeld = db
      .prepare(
        `UPDATE scoring_jobs SET due_at = @until WHERE state = 'computing' AND lease_owner = @owner AND id IN (SELECT value FROM json_each(@ids))
         RETURNING id`,
      )
      .pluck();
    // Only its holder finishes a job: a lease taken over since makes this change nothing.
    this.finish = db.prepare(
      `UPDATE scoring_jobs SET state = @state, due_at = NULL, lease_owner = NULL, message = @message,
         prompt_tokens = prompt_tokens + @prompt, completion_tokens = completion_tokens + @completion, updated_at = @now
       WHERE id = @id AND state = 'computing' AND lease_owner = @owner`,
    );
    this.putBack = db.prepare(
      `UPDATE scoring_jobs SET state = 'pending', due_at = @dueAt, lease_owner = NULL, message = @message,
         prompt_tokens = prompt_tokens + @prompt, completion_tokens = completion_tokens + @completion, updated_at = @now
       WHERE id = @id AND state = 'computing' AND lease_owner = @owner`,
    );
    // An entry of a later version stays (a job of an older one finishing late), and so does a success of
    // the same version (a second job of the record's: it was sent again under another trace); a roll-up gives way.
    this.writeEntry = db.prepare(
      `UPDATE log_records SET
         metric_info = json_set(metric_info, @path, json(@info)),
         metrics = CASE WHEN @value IS NULL THEN json_remove(metrics, @path) ELSE json_set(metrics, @path, json(@value)) END
       WHERE run_id = @runId AND id = @recordId
         AND (coalesce(json_extract(metric_info, @path || '.version'), 0) < @version
           OR (json_extract(metric_info, @path || '.version') = @version AND json_extract(metric_info, @path || '.status_type') != 'success')
           OR json_extract(metric_info, @path || '.roll_up_method') IS NOT NULL)
       RETURNING id, type, trace_id AS traceId, session_id AS sessionId`,
    );
    this.markPresent = db.prepare('INSERT OR IGNORE INTO run_columns (run_id, column_id) VALUES (?, ?)');
    // The values that count in a roll-up (countsInRollUp): direct successes, no roll-up; numbers for
    // average and sum, also labels and booleans for first and last.
    const counted = (types: string) => `json_extract(metric_info, @path || '.status_type') = 'success' AND json_extract(metric_info, @path || '.roll_up_method') IS NULL
       AND json_type(metric_info, @path || '.value') IN ${types}`;
    const numbers = counted("('integer', 'real')");
    const picked = counted("('integer', 'real', 'true', 'false', 'text')");
    const of = { trace: "trace_id = @target AND type NOT IN ('trace', 'session')", session: "session_id = @target AND type != 'session'" } as const;
    const prepareRollUps = (scope: string) => ({
      numbers: db.prepare(
        `SELECT avg(json_extract(metric_info, @path || '.value')) AS average, sum(json_extract(metric_info, @path || '.value')) AS sum, count(*) AS n
         FROM log_records WHERE run_id = @runId AND ${scope} AND ${numbers}`,
      ),
      // The values as JSON text (->), so that a boolean stays one; first and last by creation time, to the microsecond, then id.
      picked: db.prepare(
        `SELECT count(*) AS n,
           (SELECT metric_info -> (@path || '.value') FROM log_records WHERE run_id = @runId AND ${scope} AND ${picked}
            ORDER BY created_at, created_at_us, id LIMIT 1) AS first,
           (SELECT metric_info -> (@path || '.value') FROM log_records WHERE run_id = @runId AND ${scope} AND ${picked}
            ORDER BY created_at DESC, created_at_us DESC, id DESC LIMIT 1) AS last
         FROM log_records WHERE run_id = @runId AND ${scope} AND ${picked}`,
      ),
    });
    this.rollUpOfTrace = prepareRollUps(of.trace);
    this.rollUpOfSession = prepareRollUps(of.session);
    this.entryOf = db.prepare('SELECT json_extract(metric_info, @path) FROM log_records WHERE run_id = @runId AND id = @target').pluck();
    this.writeRollUp = db.prepare(
      `UPDATE log_records SET metric_info = json_set(metric_info, @path, json(@info)), metrics = json_set(metrics, @path, json(@value))
       WHERE run_id = @runId AND id = @target`,
    );
    this.removeRollUp = db.prepare(
      'UPDATE log_records SET metric_info = json_remove(metric_info, @path), metrics = json_remove(metrics, @path) WHERE run_id = @runId AND id = @target',
    );
    this.countByState = db.prepare(
      `SELECT scorer_id, version, state, count(*) AS n, sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion
       FROM scoring_jobs WHERE run_id = ? GROUP BY scorer_id, version, state`,
    );
    this.lastError = db.prepare(
      `SELECT message, updated_at FROM scoring_jobs
       WHERE run_id = ? AND scorer_id = ? AND version = ? AND message IS NOT NULL AND state IN ('pending', 'error', 'failed')
       ORDER BY updated_at DESC, id DESC LIMIT 1`,
    );
    this.depthByState = db.prepare("SELECT state, count(*) AS n FROM scoring_jobs WHERE due_at IS NOT NULL GROUP BY state");

    this.completeAll = db.transaction((job, outcome, now, rollUp) => {
      const tokens = { prompt: outcome.tokens.prompt, completion: outcome.tokens.completion };
      if (outcome.state === 'retry')
        return this.putBack.run({ id: Number(job.id), owner: job.leaseOwner, dueAt: outcome.dueAt.getTime(), message: outcome.message, now, ...tokens }).changes > 0;
      const message = outcome.state === 'success' ? null : outcome.message;
      if (this.finish.run({ id: Number(job.id), owner: job.leaseOwner, state: outcome.state, message, now, ...tokens }).changes === 0) return false;
      const path = metricPath(job.metricName);
      const written = this.writeEntry.get({
        path,
        info: JSON.stringify(outcome.info),
        value: valueJson(outcome.info),
        runId: job.runId,
        recordId: job.recordId,
        version: job.version,
      }) as { id: string; type: string; traceId: string | null; sessionId: string | null } | undefined;
      if (written === undefined) return true; // the record is gone, or holds a later version's entry
      if (outcome.state === 'success') this.markPresent.run(job.runId, `metrics/${job.metricName}`);
      if (rollUp !== null) this.rollUp(job.runId, path, rollUp, written as Parameters<typeof rollUpTargets>[0]);
      return true;
    });
    this.requeueAll = db.transaction((jobs, now) => this.jobs.requeue(jobs, now));
  }

  /** The record's trace and session take the roll-up of their scored descendants, or lose a roll-up none is left for. */
  private rollUp(runId: RunId, path: string, spec: RollUpSpec, record: Parameters<typeof rollUpTargets>[0]): void {
    const targets = rollUpTargets(record);
    for (const [target, statements] of [
      [targets.trace, this.rollUpOfTrace],
      [targets.session, this.rollUpOfSession],
    ] as const) {
      if (target === null) continue;
      const stored = this.entryOf.get({ path, runId, target }) as string | null | undefined;
      if (stored === undefined) continue; // no such record
      if (!takesRollUp(stored === null ? undefined : (JSON.parse(stored) as MetricInfo))) continue;
      const { value, n } = picksValue(spec.method) ? this.picked(statements.picked, spec, { path, runId, target }) : this.computed(statements.numbers, spec, { path, runId, target });
      if (value === null) {
        if (stored !== null) this.removeRollUp.run({ path, runId, target });
      } else this.writeRollUp.run({ path, runId, target, value: JSON.stringify(value), info: JSON.stringify(rollUpInfo(spec, value, n)) });
    }
  }

  private computed(statement: Database.Statement, spec: RollUpSpec, params: Record<string, string>): { value: MetricValue | null; n: number } {
    const { average, sum, n } = statement.get(params) as { average: number | null; sum: number | null; n: number };
    return { value: n === 0 ? null : rollUpValue(spec.method, { average, sum, first: null, last: null }), n };
  }

  private picked(statement: Database.Statement, spec: RollUpSpec, params: Record<string, string>): { value: MetricValue | null; n: number } {
    const { first, last, n } = statement.get(params) as { first: string | null; last: string | null; n: number };
    const parse = (json: string | null) => (json === null ? null : (JSON.parse(json) as MetricValue));
    return { value: n === 0 ? null : rollUpValue(spec.method, { average: null, sum: null, first: parse(first), last: parse(last) }), n };
  }

  claim(owner: string, limit: number, now: Date, leaseUntil: Date): Result<ReadonlyArray<ClaimedJob>> {
    return run(() => (this.claimDue.all({ owner, limit, now: now.getTime(), until: leaseUntil.getTime() }) as ClaimedRow[]).map(claimedJob));
  }

  renew(owner: string, ids: ReadonlyArray<string>, leaseUntil: Date): Result<ReadonlyArray<string>> {
    return run(() => (this.renewHeld.all({ owner, ids: JSON.stringify(ids.map(Number)), until: leaseUntil.getTime() }) as number[]).map(String));
  }

  // IMMEDIATE: the write lock first (see live-parent); in the writer thread's group commit, a savepoint.
  complete(job: ClaimedJob, outcome: JobOutcome, now: Date, rollUp: RollUpSpec | null): Result<boolean> {
    return run(() => this.completeAll.immediate(job, outcome, now.getTime(), rollUp));
  }

  requeue(jobs: ReadonlyArray<NewScoringJob>, now: Date): Result<number> {
    return run(() => this.requeueAll.immediate(jobs, now.getTime()));
  }

  counts(runId: RunId): Result<ReadonlyArray<JobCounts>> {
    return run(() => {
      const rows = this.countByState.all(runId) as Array<{ scorer_id: string; version: number; state: JobState; n: number; prompt: number; completion: number }>;
      const byVersion = new Map<string, { scorerId: ScorerId; version: number; counts: Record<JobState, number>; prompt: number; completion: number }>();
      for (const r of rows) {
        const key = `${r.scorer_id}@${r.version}`;
        const entry = byVersion.get(key) ?? { scorerId: r.scorer_id as ScorerId, version: r.version, counts: zeroCounts(), prompt: 0, completion: 0 };
        entry.counts[r.state] = r.n;
        entry.prompt += r.prompt;
        entry.completion += r.completion;
        byVersion.set(key, entry);
      }
      return [...byVersion.values()].map((e) => {
        const last = this.lastError.get(runId, e.scorerId, e.version) as { message: string; updated_at: number } | undefined;
        return {
          scorerId: e.scorerId,
          version: e.version,
          counts: e.counts,
          tokens: { prompt: e.prompt, completion: e.completion },
          lastError: last === undefined ? null : { message: last.message, at: new Date(last.updated_at) },
        };
      });
    });
  }

  depth(): Result<{ readonly pending: number; readonly computing: number }> {
    return run(() => {
      const rows = this.depthByState.all() as Array<{ state: string; n: number }>;
      return { pending: rows.find((r) => r.state === 'pending')?.n ?? 0, computing: rows.find((r) => r.state === 'computing')?.n ?? 0 };
    });
  }
}
