// The scoring queue on MongoDB: one document per job, claimed one at a time by findOneAndUpdate (atomic
// per document, so any number of processes hold each job once), finished in a transaction with the
// record's entry and roll-ups.
import {
  type ClaimedJob,
  type JobCounts,
  type JobOutcome,
  type JobState,
  type MetricInfo,
  type NewScoringJob,
  type NodeType,
  type RollUpSpec,
  type RunId,
  REQUEUED_STATES,
  pendingInfo,
  type MetricValue,
  picksValue,
  rollUpInfo,
  rollUpValue,
  rollUpTargets,
  takesRollUp,
  zeroCounts,
} from '@tracelight/domain';
import type { Result, ScoringQueue } from '@tracelight/ports';
import { inject, injectable } from 'inversify';
import type { AnyBulkWriteOperation, ClientSession, Collection, Document, Filter, MongoClient } from 'mongodb';
import { MongoDatabase, MongoDatabaseToken } from '../shared/mongo-database';
import { inTransaction, run } from '../shared/run';
import { encodeMetricKey } from '../tracing/record-fields';

/** A job as stored. `dueAt`: when a pending job may be claimed, or a computing job's lease ends; absent once it has an outcome. */
export interface JobDoc {
  _id: string;
  runId: string;
  projectId: string;
  recordId: string;
  traceId: string | null;
  scorerId: string;
  version: number;
  kind: string;
  metricName: string;
  ownerId: string;
  state: JobState;
  dueAt?: Date;
  leaseOwner?: string;
  attempts: number;
  /**
   * Times the job was made pending again because its record is scored afresh (rescoreJobs); absent for
   * none. A claimed job's id names it, so that a holder of a claim made before stores nothing, even when
   * its own process has claimed the job again since (the same lease owner).
   */
  rescored?: number;
  message: string | null;
  promptTokens: number;
  completionTokens: number;
  createdAt: Date;
  updatedAt: Date;
}

/** A job's key: one per (run, scorer, version, record), so storing it twice is one document. */
export const jobKey = (j: Pick<NewScoringJob, 'runId' | 'scorerId' | 'version' | 'recordId'>): string => `${j.runId}:${j.scorerId}:${j.version}:${j.recordId}`;

export const newJobDoc = (j: NewScoringJob, now: Date): JobDoc => ({
  _id: jobKey(j),
  runId: j.runId,
  projectId: j.projectId,
  recordId: j.recordId,
  traceId: j.traceId,
  scorerId: j.scorerId,
  version: j.version,
  kind: j.kind,
  metricName: j.metricName,
  ownerId: j.ownerId,
  state: 'pending',
  dueAt: now,
  attempts: 0,
  message: null,
  promptTokens: 0,
  completionTokens: 0,
  createdAt: now,
  updatedAt: now,
});

/** Inserts each job not stored yet, in the caller's transaction (the ingest's: an outbox); one already stored stays as it is. */
export const insertNewJobs = async (jobs: Collection<JobDoc>, newJobs: ReadonlyArray<NewScoringJob>, now: Date, session: ClientSession): Promise<void> => {
  if (newJobs.length === 0) return;
  await jobs.bulkWrite(
    newJobs.map((j): AnyBulkWriteOperation<JobDoc> => {
      const { _id, ...doc } = newJobDoc(j, now);
      return { updateOne: { filter: { _id }, update: { $setOnInsert: doc }, upsert: true } };
    }),
    { session, ordered: false },
  );
};

/**
 * Makes each stored job of these pending again whatever its state, in the caller's transaction (a record
 * scored afresh: scoringOnWrite): its attempts reset and its lease lost, so that a holder scoring what the
 * record was finds the job no longer its own and stores nothing. Jobs not stored are left to insertNewJobs.
 */
export const rescoreJobs = async (jobs: Collection<JobDoc>, again: ReadonlyArray<NewScoringJob>, now: Date, session: ClientSession): Promise<void> => {
  if (again.length === 0) return;
  await jobs.bulkWrite(
    again.map(
      (j): AnyBulkWriteOperation<JobDoc> => ({
        updateOne: {
          filter: { _id: jobKey(j) },
          update: { $set: { state: 'pending', dueAt: now, attempts: 0, message: null, updatedAt: now }, $unset: { leaseOwner: '' }, $inc: { rescored: 1 } },
        },
      }),
    ),
    { session, ordered: false },
  );
};

/** A claimed job's id (ClaimedJob.id, opaque to its holder): how often the job was scored afresh, and its key. */
const claimId = (d: Pick<JobDoc, '_id' | 'rescored'>): string => `${d.rescored ?? 0}#${d._id}`;
/** The job a claimed job's id names, as it was when claimed (the first `#`: the number holds none, a record's id may). */
const claimOf = (id: string): Filter<JobDoc> => {
  const at = id.indexOf('#');
  const rescored = Number(id.slice(0, at));
  return { _id: id.slice(at + 1), rescored: rescored === 0 ? { $exists: false } : rescored };
};

/** A record's `_id` (as MongoLogRecordRepository keys it). */
const recordKey = (runId: string, id: string): string => `${runId}:${id}`;

@injectable()
export class MongoScoringQueue implements ScoringQueue {
  private readonly client: MongoClient;
  private readonly jobs: Collection<JobDoc>;
  private readonly records: Collection<Document & { _id: string }>;
  private readonly columns: Collection<{ _id: string; columns: string[] }>;

  constructor(@inject(MongoDatabaseToken) database: MongoDatabase) {
    this.client = database.client;
    this.jobs = database.db.collection('scoring_jobs');
    this.records = database.db.collection('log_records');
    this.columns = database.db.collection('run_columns');
  }

  claim(owner: string, limit: number, now: Date, leaseUntil: Date): Result<ReadonlyArray<ClaimedJob>> {
    return run(async () => {
      const claimed: ClaimedJob[] = [];
      // One document at a time: each findOneAndUpdate is atomic, so of concurrent claims each job goes to one.
      while (claimed.length < limit) {
        const d = await this.jobs.findOneAndUpdate(
          { dueAt: { $exists: true, $lte: now } },
          { $set: { state: 'computing', leaseOwner: owner, dueAt: leaseUntil, updatedAt: now }, $inc: { attempts: 1 } },
          { sort: { dueAt: 1, _id: 1 }, returnDocument: 'after' },
        );
        if (d === null) break;
        claimed.push({
          id: claimId(d),
          runId: d.runId as RunId,
          projectId: d.projectId as ClaimedJob['projectId'],
          recordId: d.recordId,
          traceId: d.traceId ?? null,
          scorerId: d.scorerId as ClaimedJob['scorerId'],
          version: d.version,
          kind: d.kind as ClaimedJob['kind'],
          metricName: d.metricName,
          ownerId: d.ownerId as ClaimedJob['ownerId'],
          attempts: d.attempts,
          leaseOwner: owner,
        });
      }
      return claimed;
    });
  }

  renew(owner: string, ids: ReadonlyArray<string>, leaseUntil: Date): Result<ReadonlyArray<string>> {
    return run(async () => {
      if (ids.length === 0) return [];
      const held: Filter<JobDoc> = { $or: ids.map(claimOf), state: 'computing', leaseOwner: owner };
      await this.jobs.updateMany(held, { $set: { dueAt: leaseUntil } });
      return (await this.jobs.find(held, { projection: { _id: 1, rescored: 1 } }).toArray()).map(claimId);
    });
  }

  complete(job: ClaimedJob, outcome: JobOutcome, now: Date, rollUp: RollUpSpec | null): Result<boolean> {
    return run(async () => {
      let stored = false;
      // The callback may run again (a write conflict): each attempt starts over.
      await inTransaction(this.client, async (session) => {
        stored = await this.completeIn(session, job, outcome, now, rollUp);
      });
      return stored;
    });
  }

  private async completeIn(session: ClientSession, job: ClaimedJob, outcome: JobOutcome, now: Date, rollUp: RollUpSpec | null): Promise<boolean> {
    const held: Filter<JobDoc> = { ...claimOf(job.id), state: 'computing', leaseOwner: job.leaseOwner };
    const tokens = { promptTokens: outcome.tokens.prompt, completionTokens: outcome.tokens.completion };
    if (outcome.state === 'retry') {
      const r = await this.jobs.updateOne(
        held,
        { $set: { state: 'pending', dueAt: outcome.dueAt, message: outcome.message, updatedAt: now }, $unset: { leaseOwner: '' }, $inc: tokens },
        { session },
      );
      return r.matchedCount > 0;
    }
    // Only its holder finishes a job: a lease taken over since matches nothing, and nothing is written.
    const finished = await this.jobs.updateOne(
      held,
      { $set: { state: outcome.state, message: outcome.state === 'success' ? null : outcome.message, updatedAt: now }, $unset: { dueAt: '', leaseOwner: '' }, $inc: tokens },
      { session },
    );
    if (finished.matchedCount === 0) return false;
    const key = encodeMetricKey(job.metricName);
    const info = outcome.info;
    const value = info.status_type === 'success' && info.value !== undefined && info.value !== null ? info.value : undefined;
    // An entry of a later version stays (a job of an older one finishing late), and so does a success of
    // the same version (stored once, as SQLite's); a roll-up gives way.
    const record = await this.records.findOneAndUpdate(
      {
        _id: recordKey(job.runId, job.recordId),
        projectId: job.projectId,
        runId: job.runId,
        $or: [
          { [`metricInfo.${key}.version`]: { $not: { $gte: job.version } } },
          { [`metricInfo.${key}.version`]: job.version, [`metricInfo.${key}.status_type`]: { $ne: 'success' } },
          { [`metricInfo.${key}.roll_up_method`]: { $exists: true } },
        ],
      },
      value === undefined
        ? { $set: { [`metricInfo.${key}`]: info }, $unset: { [`metrics.${key}`]: '' } }
        : { $set: { [`metricInfo.${key}`]: info, [`metrics.${key}`]: value } },
      { session, projection: { recordId: 1, type: 1, traceId: 1, sessionId: 1 }, returnDocument: 'after' },
    );
    if (record === null) return true; // the record is gone, or holds a later version's entry
    if (outcome.state === 'success') await this.markPresent(session, job.runId, `metrics/${job.metricName}`);
    if (rollUp !== null)
      await this.rollUp(session, job, key, rollUp, {
        id: String(record['recordId']),
        type: record['type'] as NodeType,
        traceId: (record['traceId'] as string | null) ?? null,
        sessionId: (record['sessionId'] as string | null) ?? null,
      });
    return true;
  }

  /** As ingest does: the run's presence document is written only when the column is new to it (fewer write conflicts). */
  private async markPresent(session: ClientSession, runId: string, column: string): Promise<void> {
    const known = await this.columns.findOne({ _id: runId, columns: column }, { session, projection: { _id: 1 } });
    if (known === null) await this.columns.updateOne({ _id: runId }, { $addToSet: { columns: column } }, { upsert: true, session });
  }

  /** The record's trace and session take the roll-up of their scored descendants, or lose a roll-up none is left for. */
  private async rollUp(session: ClientSession, job: ClaimedJob, key: string, spec: RollUpSpec, record: Parameters<typeof rollUpTargets>[0]): Promise<void> {
    const targets = rollUpTargets(record);
    const scope = { projectId: job.projectId, runId: job.runId };
    const picks = picksValue(spec.method);
    // countsInRollUp: direct successes, no roll-up; numbers, and for first and last labels and booleans too.
    const counted = {
      [`metricInfo.${key}.status_type`]: 'success',
      [`metricInfo.${key}.roll_up_method`]: { $exists: false },
      [`metricInfo.${key}.value`]: { $type: picks ? ['number', 'string', 'bool'] : 'number' },
    };
    const plans: Array<readonly [string | null, Filter<Document>]> = [
      [targets.trace, { ...scope, traceId: targets.trace, type: { $nin: ['trace', 'session'] }, ...counted }],
      [targets.session, { ...scope, sessionId: targets.session, type: { $ne: 'session' }, ...counted }],
    ];
    const value = `$metricInfo.${key}.value`;
    for (const [target, match] of plans) {
      if (target === null) continue;
      const targetKey = recordKey(job.runId, target);
      const stored = await this.records.findOne({ ...scope, _id: targetKey }, { session, projection: { [`metricInfo.${key}`]: 1 } });
      if (stored === null) continue;
      const current = (stored['metricInfo'] as Record<string, MetricInfo> | undefined)?.[key];
      if (!takesRollUp(current)) continue;
      // First and last by creation time, to the microsecond, then id (within a run, _id orders as the id), as SQLite's.
      const [found] = await this.records
        .aggregate<{ average: number | null; sum: number | null; first: MetricValue | null; last: MetricValue | null; n: number }>(
          [
            { $match: match },
            ...(picks ? [{ $sort: { createdAt: 1, createdAtMicros: 1, _id: 1 } }] : []),
            { $group: { _id: null, average: { $avg: value }, sum: { $sum: value }, first: { $first: value }, last: { $last: value }, n: { $sum: 1 } } },
          ],
          { session },
        )
        .toArray();
      const rolled = found === undefined || found.n === 0 ? null : rollUpValue(spec.method, found);
      if (found === undefined || rolled === null) {
        if (current !== undefined) await this.records.updateOne({ ...scope, _id: targetKey }, { $unset: { [`metricInfo.${key}`]: '', [`metrics.${key}`]: '' } }, { session });
      } else
        await this.records.updateOne(
          { ...scope, _id: targetKey },
          { $set: { [`metricInfo.${key}`]: rollUpInfo(spec, rolled, found.n), [`metrics.${key}`]: rolled } },
          { session },
        );
    }
  }

  requeue(jobs: ReadonlyArray<NewScoringJob>, now: Date): Result<number> {
    return run(async () => {
      let queued = 0;
      for (const j of jobs) {
        const { _id, ...doc } = newJobDoc(j, now);
        const inserted = await this.jobs.updateOne({ _id }, { $setOnInsert: doc }, { upsert: true });
        const again =
          inserted.upsertedCount > 0 ||
          (
            await this.jobs.updateOne(
              { _id, state: { $in: [...REQUEUED_STATES] } },
              { $set: { state: 'pending', dueAt: now, attempts: 0, message: null, updatedAt: now }, $unset: { leaseOwner: '' } },
            )
          ).modifiedCount > 0;
        if (!again) continue;
        queued += 1;
        const key = encodeMetricKey(j.metricName);
        await this.records.updateOne(
          { _id: recordKey(j.runId, j.recordId), projectId: j.projectId, runId: j.runId, [`metricInfo.${key}.status_type`]: { $ne: 'success' } },
          { $set: { [`metricInfo.${key}`]: pendingInfo(j.kind, j.version) } },
        );
      }
      return queued;
    });
  }

  counts(runId: RunId): Result<ReadonlyArray<JobCounts>> {
    return run(async () => {
      const groups = await this.jobs
        .aggregate<{ _id: { scorerId: string; version: number; state: JobState }; n: number; prompt: number; completion: number }>([
          { $match: { runId } },
          { $group: { _id: { scorerId: '$scorerId', version: '$version', state: '$state' }, n: { $sum: 1 }, prompt: { $sum: '$promptTokens' }, completion: { $sum: '$completionTokens' } } },
        ])
        .toArray();
      const byVersion = new Map<string, { scorerId: string; version: number; counts: Record<JobState, number>; prompt: number; completion: number }>();
      for (const g of groups) {
        const k = `${g._id.scorerId}@${g._id.version}`;
        const entry = byVersion.get(k) ?? { scorerId: g._id.scorerId, version: g._id.version, counts: zeroCounts(), prompt: 0, completion: 0 };
        entry.counts[g._id.state] = g.n;
        entry.prompt += g.prompt;
        entry.completion += g.completion;
        byVersion.set(k, entry);
      }
      const result: JobCounts[] = [];
      for (const e of byVersion.values()) {
        const [last] = await this.jobs
          .find({ runId, scorerId: e.scorerId, version: e.version, message: { $ne: null }, state: { $in: ['pending', 'error', 'failed'] } }, { projection: { message: 1, updatedAt: 1 } })
          .sort({ updatedAt: -1, _id: -1 })
          .limit(1)
          .toArray();
        result.push({
          scorerId: e.scorerId as JobCounts['scorerId'],
          version: e.version,
          counts: e.counts,
          tokens: { prompt: e.prompt, completion: e.completion },
          lastError: last === undefined || last.message === null ? null : { message: last.message, at: last.updatedAt },
        });
      }
      return result;
    });
  }

  depth(): Result<{ readonly pending: number; readonly computing: number }> {
    return run(async () => ({
      pending: await this.jobs.countDocuments({ dueAt: { $exists: true }, state: 'pending' }),
      computing: await this.jobs.countDocuments({ dueAt: { $exists: true }, state: 'computing' }),
    }));
  }
}
