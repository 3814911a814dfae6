import type { FoundPage, LogRecord, NewScoringJob, NodeType, PageRequest, PatchTarget, ProjectId, RecordFilter, RecordPatch, RecordScope, RecordSort, Run, RunId } from '@tracelight/domain';
import type { Result } from '../system/result';

/** A record's place in created_at order (to the microsecond), ties broken by id (as every search breaks them). */
export interface RecordPosition {
  readonly createdAt: Date;
  readonly createdAtMicros: number;
  readonly id: string;
}

/** A record key's place in listKeys order: created_at to the millisecond, ties broken by id. */
export interface RecordKeyPosition {
  readonly createdAt: Date;
  readonly id: string;
}

export interface RecordQuery {
  readonly projectId: ProjectId;
  readonly runId: RunId;
  readonly scope: RecordScope;
  readonly filters: ReadonlyArray<RecordFilter>;
  /** Null: newest first. Ties are always broken by id, so pages are stable. */
  readonly sort: RecordSort | null;
  readonly page: PageRequest;
  /**
   * Keyset paging, for reading a run whole: the matches start right after this place in the order,
   * and `page.startingToken` counts from there (0: the next page). Each page then costs what it
   * reads, where an offset makes the engine pass over every record before it again (reading a run of
   * n records a page at a time, O(n²)). Only with a sort on created_at, or none (newest first): it is a
   * programming error with any other.
   */
  readonly after?: RecordPosition;
  /**
   * The page's size budget: the page ends early, after the record that brings the stored size of the
   * records it holds (every field, as the engine stores it) to this many bytes or more. A page holds at
   * least one record whatever its size, so every record can be read; a run of large records is read in
   * more pages rather than held in memory whole.
   */
  readonly maxBytes: number;
  /**
   * The search's time budget, counted from when it is handed to the engine (on SQLite, time queued
   * behind other searches counts; MongoDB counts its own, maxTimeMS): a search still reading when
   * it runs out is stopped and answers TimedOut (searchTimedOut), whatever it found so far. A filter
   * that matches little of a large run reads all of it; this bounds what one request can hold.
   * Infinity: no bound (an export reading a run whole, in index order).
   */
  readonly maxMs: number;
}


/** What a recompute reads of a run's records to know which to queue: no input or output. */
export interface RecordKey {
  readonly id: string;
  readonly type: NodeType;
  /** Its trace (null for a session). */
  readonly traceId: string | null;
  readonly runId: RunId;
  readonly projectId: ProjectId;
  readonly createdAt: Date;
  /** Whether it is complete: a recompute queues no job for a record not ready to score (isReadyToScore). */
  readonly isComplete: boolean;
}

/** A page of a run's record keys, in created_at order (to the millisecond) then id, from after `after`. */
export interface RecordKeyQuery {
  readonly types: ReadonlyArray<NodeType>;
  /** Records created at or after this instant only. */
  readonly createdAfter?: Date;
  /** Records created before this instant only. */
  readonly createdBefore?: Date;
  /** The last key of the page before: its order is the millisecond and the id, not the microsecond. */
  readonly after?: Pick<RecordKey, 'createdAt' | 'id'>;
  readonly limit: number;
}

export interface LogRecordRepository {
  /**
   * Stores the records and adds `presentColumns` to the run's column presence, in one transaction:
   * all or nothing. A record whose id exists in the same run replaces it (clients retry), but where
   * replacesStoredRecord says it does not (a trace's record from a later OTLP root span: the stored
   * one stays, and the record sent is dropped); an id that belongs to another run is a Conflict, and so
   * is a session sent under a stored trace's or span's id, or a trace or span under a stored session's
   * (kindClash: nothing stored). `hasChildren` is kept true across requests: a record has
   * children when any stored record names it as parent, whichever of the two arrived first.
   * NotFound, storing nothing, when the run does not exist (any more).
   *
   * `jobs` (scoring jobs of these records, as jobsFor gives them) are stored in the same transaction, an
   * outbox: a record is never stored without its jobs, nor a job without its record. What becomes of a
   * record's jobs is scoringOnWrite's (what it was, what is sent, `ingest`): `none`, none is stored (a
   * record not complete yet); `missing`, a job already stored for the same (record, scorer, version) is
   * left as it is, and a record stored before keeps its `metricInfo` entries and the success values
   * they hold over what is sent (scoringKept: a retried ingest does not undo a scoring); `afresh`, each
   * job is made pending again (its attempts reset, its lease lost: a holder scoring what the record was
   * stores nothing) and the earlier value and entry of its metric give way. Each record is stored with
   * a `pending` entry for the metric of each job stored for it.
   */
  ingest(runId: RunId, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>, jobs?: ReadonlyArray<NewScoringJob>): Result<void>;
  /**
   * `ingest` into a run that does not exist yet: inserts `run` and stores the records (all of them
   * `run`'s) in one transaction, so an ingest that is refused (no room, say) leaves no run behind.
   * Conflict, storing nothing, when the project already has a run of that kind and name (another
   * writer created it first: ingest there instead); NotFound, storing nothing, when the project does
   * not exist (any more).
   */
  ingestIntoNewRun(run: Run, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>): Result<void>;
  /**
   * The run's session whose external id is `candidate.externalId`, storing `candidate` (a session
   * record of the run) when there is none: the oldest of them when there are several (sessions made
   * through `ingest` may share one). Atomic on each engine: concurrent calls naming the same new
   * external id, on any number of processes, all answer the one session stored. NotFound when the run
   * does not exist (any more).
   */
  findOrCreateSession(runId: RunId, candidate: LogRecord): Result<LogRecord>;
  /**
   * Applies `patch` to the run's trace (`target` trace) or span (`target` span) of that id, in one
   * transaction (applyRecordPatch, at `now`), and adds the columns the record then has to the run's
   * presence; answers the record as stored. NotFound when the run has no such record of that kind.
   * `jobs` (the record's, as jobsFor gives them) are stored in the same transaction as `ingest` stores
   * them, by scoringOnWrite(what it was, what it becomes, `patch`): a PATCH that completes the record,
   * or changes what its scorers read, scores it (afresh); one that changes nothing of that stores none.
   */
  update(runId: RunId, id: string, target: PatchTarget, patch: RecordPatch, now: Date, jobs?: ReadonlyArray<NewScoringJob>): Result<LogRecord>;
  /** The records of the run with these ids (those that exist), in no particular order. */
  findByIds(runId: RunId, ids: ReadonlyArray<string>): Result<ReadonlyArray<LogRecord>>;
  /** Keys of the run's records of some types, created_at order then id, a page at a time (keyset). */
  listKeys(runId: RunId, query: RecordKeyQuery): Result<ReadonlyArray<RecordKey>>;
  /** The columns that at least one record of the run has a value for. */
  presentColumns(runId: RunId): Result<ReadonlySet<string>>;
  /** Matching records in order from `startingToken`: at most `limit`, within `maxBytes` and `maxMs`. */
  search(query: RecordQuery): Result<FoundPage<LogRecord>>;
  /**
   * Retention: removes at most `limit` records created before `cutoff`, whatever their run, and says
   * how many it removed; fewer than `limit` means none is left. The parent of a removed record, if it
   * stays and no record of its run names it as parent any more, loses `hasChildren` in the same write.
   * Column presence is left as it is (a column stays listed as present once a record had it).
   */
  removeCreatedBefore(cutoff: Date, limit: number): Result<number>;
}
export const LogRecordRepository = Symbol.for('tracelight.LogRecordRepository');
