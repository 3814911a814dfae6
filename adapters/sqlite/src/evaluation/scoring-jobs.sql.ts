// Statements on scoring_jobs shared by the record repository (jobs stored with their records) and the
// queue (recompute): inserting jobs, and the record's `pending` entry for a queued metric.
import { type MetricInfo, type NewScoringJob, pendingInfo } from '@tracelight/domain';
import type Database from 'better-sqlite3';

/** A metric's JSON path in a record's `metrics` or `metric_info`: a quoted label, `"` and `\` escaped. */
export const metricPath = (name: string): string => `$."${name.replace(/["\\]/g, '\\$&')}"`;

const COLUMNS = 'run_id, project_id, record_id, trace_key, scorer_id, version, kind, metric_name, owner_id, state, due_at, created_at, updated_at';
const VALUES = "@runId, @projectId, @recordId, @traceKey, @scorerId, @version, @kind, @metricName, @ownerId, 'pending', @now, @now, @now";

/** A job's trace in its key: the record's trace id, '' for a session (NULL would make every session's job unique). */
export const traceKey = (traceId: string | null): string => traceId ?? '';

/** The states a recompute queues again (REQUEUED_STATES), as SQL. */
const REQUEUED = "('error', 'failed', 'not_applicable', 'not_computed')";

/**
 * Jobs of one ingest, grouped by scorer version: what they share once, their records' ids in a list.
 * Cheaper to hand to the writer thread than a job object each, and stored by one statement a group.
 */
export interface JobGroup {
  readonly runId: string;
  readonly projectId: string;
  readonly scorerId: string;
  readonly version: number;
  readonly kind: string;
  readonly metricName: string;
  readonly ownerId: string;
  /** [record id, trace key] of each job. */
  readonly records: ReadonlyArray<readonly [string, string]>;
}

export const groupJobs = (jobs: ReadonlyArray<NewScoringJob>): ReadonlyArray<JobGroup> => {
  const groups = new Map<string, { group: Omit<JobGroup, 'records'>; records: Array<readonly [string, string]> }>();
  for (const j of jobs) {
    const key = `${j.runId} ${j.scorerId} ${j.version}`;
    let g = groups.get(key);
    if (g === undefined) {
      g = { group: { runId: j.runId, projectId: j.projectId, scorerId: j.scorerId, version: j.version, kind: j.kind, metricName: j.metricName, ownerId: j.ownerId }, records: [] };
      groups.set(key, g);
    }
    g.records.push([j.recordId, traceKey(j.traceId)]);
  }
  return [...groups.values()].map(({ group, records }) => ({ ...group, records }));
};

export interface JobWrites {
  /** Stores each job not stored yet for its (run, record, scorer, version); one already there is left as it is. */
  insertNew(groups: ReadonlyArray<JobGroup>, now: number): void;
  /**
   * Makes each stored job of these pending again whatever its state (a record scored afresh:
   * scoringOnWrite), its attempts reset and its lease lost. It takes a new id, past every other: a
   * holder scoring what the record was (even this process's, which may claim it again) finishes an id
   * that is no more, and stores nothing. Jobs not stored are left to insertNew.
   */
  rescore(groups: ReadonlyArray<JobGroup>, now: number): void;
  /**
   * Stores each job not stored yet, and makes pending again each stored one whose outcome may change
   * (REQUEUED_STATES); the record's entry says `pending` unless it holds a success. How many were queued.
   */
  requeue(jobs: ReadonlyArray<NewScoringJob>, now: number): number;
}

const bind = (j: NewScoringJob, now: number) => ({
  runId: j.runId,
  projectId: j.projectId,
  recordId: j.recordId,
  traceKey: traceKey(j.traceId),
  scorerId: j.scorerId,
  version: j.version,
  kind: j.kind,
  metricName: j.metricName,
  ownerId: j.ownerId,
  now,
});

export const prepareJobWrites = (db: Database.Database): JobWrites => {
  // A group in one statement, its record ids as a JSON array: the loop stays in SQLite's C code.
  const insertGroup = db.prepare(
    `INSERT INTO scoring_jobs (${COLUMNS})
     SELECT @runId, @projectId, value ->> 0, value ->> 1, @scorerId, @version, @kind, @metricName, @ownerId, 'pending', @now, @now, @now FROM json_each(@records) WHERE 1
     ON CONFLICT (run_id, trace_key, record_id, scorer_id, version) DO NOTHING`,
  );
  const upsert = db
    .prepare(
      `INSERT INTO scoring_jobs (${COLUMNS}) VALUES (${VALUES})
       ON CONFLICT (run_id, trace_key, record_id, scorer_id, version) DO UPDATE SET
         state = 'pending', due_at = excluded.due_at, attempts = 0, lease_owner = NULL, message = NULL, updated_at = excluded.updated_at
       WHERE scoring_jobs.state IN ${REQUEUED}
       RETURNING id`,
    )
    .pluck();
  const markPending = db.prepare(
    `UPDATE log_records SET metric_info = json_set(metric_info, @path, json(@info))
     WHERE run_id = @runId AND id = @recordId AND coalesce(json_extract(metric_info, @path || '.status_type'), '') != 'success'`,
  );
  // One job at a time: each takes the next id past the largest, which the one before it just took.
  const restart = db.prepare(
    `UPDATE scoring_jobs SET id = (SELECT max(id) + 1 FROM scoring_jobs), state = 'pending', due_at = @now, attempts = 0, lease_owner = NULL,
       message = NULL, updated_at = @now
     WHERE run_id = @runId AND trace_key = @traceKey AND record_id = @recordId AND scorer_id = @scorerId AND version = @version`,
  );
  return {
    rescore: (groups, now) => {
      for (const g of groups)
        for (const [recordId, traceKey] of g.records) restart.run({ runId: g.runId, traceKey, recordId, scorerId: g.scorerId, version: g.version, now });
    },
    insertNew: (groups, now) => {
      for (const { records, ...g } of groups) insertGroup.run({ ...g, records: JSON.stringify(records), now });
    },
    requeue: (jobs, now) => {
      let queued = 0;
      for (const j of jobs) {
        if (upsert.get(bind(j, now)) === undefined) continue;
        queued += 1;
        const info: MetricInfo = pendingInfo(j.kind, j.version);
        markPending.run({ path: metricPath(j.metricName), info: JSON.stringify(info), runId: j.runId, recordId: j.recordId });
      }
      return queued;
    },
  };
};
