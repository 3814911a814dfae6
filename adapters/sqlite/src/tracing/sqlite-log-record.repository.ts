import {
  type FoundPage,
  type LogRecord,
  type MetricInfo,
  type MetricValue,
  type NewScoringJob,
  type NodeType,
  type PatchTarget,
  type ProjectId,
  type RecordPatch,
  type Run,
  type RunId,
  type ScorerVersionKind,
  applyRecordPatch,
  firstKindClash,
  foldCase,
  isPatchTarget,
  notFound,
  pendingInfo,
  presentColumns,
  isReadyToScore,
  scoringKept,
  scoringOnWrite,
  searchTimedOut,
  takePage,
} from '@tracelight/domain';
import type { LogRecordRepository, RecordKey, RecordKeyQuery, RecordQuery, Result } from '@tracelight/ports';
import type Database from 'better-sqlite3';
import { inject, injectable } from 'inversify';
import { Abort, run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';
import { type InsertRun, prepareInsertRun, runNameTaken } from '../projects-runs/insert-run';
import { type UnderLiveParent, underLiveParent } from '../projects-runs/live-parent';
import { READ_COLUMNS, RECORD_COLUMNS, type RecordValues, VALUE_INDEX, deflateLargeTexts, recordFromRow, recordFromValues, recordToValues } from './log-record.mapper';
import { FOLD_CASE, SEARCH_BUDGET, SIZE_COLUMN, compileSearch } from './record-query.sql';
import { type JobGroup, type JobWrites, groupJobs, prepareJobWrites, traceKey } from '../evaluation/scoring-jobs.sql';
import { TermsIndexWrites, chunkTermsOf } from './terms-index';
import { CHUNK_RECORDS } from './record-terms';
import { leadingPath } from './record-plan';

/**
 * The rows' metrics and metric entries as scoringKept says, in place: a stored record's entries and
 * values kept, a `pending` entry for each job; for a record scored afresh (`afresh`), its earlier value
 * and entry of each job's metric dropped. Only rows with either are touched. On the ingest's path: a new
 * record with one job (the usual case) takes its group's entry as JSON made once.
 */
const keepScoring = (
  rows: ReadonlyArray<RecordValues>,
  stored: ReadonlyArray<{ readonly id: string; readonly metricInfo: string }>,
  groups: ReadonlyArray<JobGroup>,
  afresh: ReadonlySet<string>,
): void => {
  const storedInfo = new Map<string, Record<string, MetricInfo>>();
  for (const r of stored) if (r.metricInfo !== '{}') storedInfo.set(r.id, JSON.parse(r.metricInfo) as Record<string, MetricInfo>);
  if (storedInfo.size === 0 && groups.length === 0) return;
  // Each record's groups (by index), and each group's pending entry.
  const groupsOf = new Map<string, number[]>();
  groups.forEach((g, i) => {
    for (const [recordId] of g.records) {
      const of = groupsOf.get(recordId);
      if (of === undefined) groupsOf.set(recordId, [i]);
      else of.push(i);
    }
  });
  const entries = groups.map((g) => pendingInfo(g.kind as ScorerVersionKind, g.version));
  const alone = groups.map((g, i) => JSON.stringify({ [g.metricName]: entries[i] }));
  for (const row of rows as Array<Array<string | number | null>>) {
    const id = row[VALUE_INDEX.id] as string;
    const kept = storedInfo.get(id);
    const of = groupsOf.get(id);
    if (kept === undefined && of === undefined) continue;
    const again = afresh.has(id);
    if (kept === undefined && of!.length === 1 && !again) {
      row[VALUE_INDEX.metricInfo] = alone[of![0]!]!;
      continue;
    }
    const queued = of === undefined ? undefined : Object.fromEntries(of.map((i) => [groups[i]!.metricName, entries[i]!]));
    const readsMetrics = kept !== undefined || again;
    const merged = scoringKept(readsMetrics ? (JSON.parse(row[VALUE_INDEX.metrics] as string) as Record<string, MetricValue | null>) : {}, kept, queued, again);
    if (readsMetrics) row[VALUE_INDEX.metrics] = JSON.stringify(merged.metrics);
    row[VALUE_INDEX.metricInfo] = JSON.stringify(merged.metricInfo);
  }
};

/**
 * Records as rows to write, their large texts deflated, with the record index's terms of each group
 * (worked out from the texts before they are deflated).
 */
const rowsOf = (runId: RunId, records: ReadonlyArray<LogRecord>): { readonly rows: ReadonlyArray<RecordValues>; readonly terms: ReadonlyArray<string> } => {
  const rows = records.map(recordToValues);
  return { terms: chunkTermsOf(runId, rows), rows: deflateLargeTexts(rows) };
};

/** The groups with only the jobs of records `keep` says. */
const jobsOfRecords = (groups: ReadonlyArray<JobGroup>, keep: (recordId: string) => boolean): ReadonlyArray<JobGroup> =>
  groups.flatMap((g) => {
    const records = g.records.filter(([id]) => keep(id));
    return records.length === 0 ? [] : [{ ...g, records }];
  });

/** `make()`'s result, made at the first call. */
const lazily = <A>(make: () => A): (() => A) => {
  let made: { readonly value: A } | undefined;
  return () => (made ??= { value: make() }).value;
};

/** Thrown by SEARCH_BUDGET inside SQLite, and caught as it leaves: the search ran out of time. */
class OutOfTime extends Error {}

@injectable()
export class SqliteLogRecordRepository implements LogRecordRepository {
  private readonly db: Database.Database;
  private readonly upsert;
  private readonly insertNew;
  private readonly mark;
  private readonly present;
  private readonly markParents;
  private readonly markFoundParents;
  private readonly storedOf;
  private readonly lastRowid;
  private readonly terms: TermsIndexWrites;
  private readonly unmarkChildless;
  private readonly removeOld;
  private readonly expire: Database.Transaction<(cutoff: number, limit: number) => number>;
  private readonly jobs: JobWrites;
  private readonly removeJobsOf;
  private readonly byIds;
  private readonly keysFrom;
  private readonly underLiveRun: UnderLiveParent;
  private readonly insertRun: InsertRun;
  /** Runs its argument in one transaction (nested: a savepoint). */
  private readonly together: Database.Transaction<(work: () => void) => void>;
  /** The same, answering what its argument answers. */
  private readonly inOne: Database.Transaction<(work: () => LogRecord) => LogRecord>;
  private readonly recordOf;
  private readonly sessionOf;
  /** When the search under way runs out of time (performance.now()); one search at a time per connection. */
  private deadline = Number.POSITIVE_INFINITY;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.db = db;
    this.underLiveRun = underLiveParent(db, 'run');
    this.insertRun = prepareInsertRun(db);
    this.together = db.transaction((work: () => void) => work());
    this.inOne = db.transaction((work: () => LogRecord) => work());
    // The statements that read records whole are prepared at their first use, as the writes below are.
    this.recordOf = lazily(() => db.prepare(`SELECT ${READ_COLUMNS.join(', ')} FROM log_records WHERE run_id = ? AND id = ?`));
    // Through log_records_sessions_by_external_id (partial: its WHERE must say type = 'session').
    this.sessionOf = lazily(() =>
      db.prepare(
        `SELECT ${READ_COLUMNS.join(', ')} FROM log_records WHERE run_id = ? AND type = 'session' AND external_id = ?
         ORDER BY created_at, created_at_us, id LIMIT 1`,
      ),
    );
    // Case-insensitive filters compare folded text (SQLite's lower() folds ASCII only). Text in, text out;
    // NULL stays NULL, so a record without the value is still without it.
    db.function(FOLD_CASE, { deterministic: true }, (v: unknown) => (typeof v === 'string' ? foldCase(v) : v === null ? null : foldCase(String(v))));
    db.function(SEARCH_BUDGET, { deterministic: false, directOnly: true }, () => {
      if (performance.now() > this.deadline) throw new OutOfTime();
      return 1;
    });
    this.jobs = prepareJobWrites(db);
    const updates = RECORD_COLUMNS.filter((c) => c !== 'id' && c !== 'run_id').map((c) => `${c} = excluded.${c}`);
    // A record is its run's: a retried one replaces itself, and the same id in another run (another
    // user's, say) is another record, never touched from here. The WHERE is replacesStoredRecord: a
    // trace's record from a later OTLP root span leaves the stored one as it is.
    // For a record stored before (found by storedOf; its new document comes from the record index's
    // trigger on update, migration 15).
    // (Prepared at the first write, as are the next: a repository may be made on a database not migrated
    // that far, by a test of an earlier migration.)
    this.upsert = lazily(() =>
      db.prepare(
        `INSERT INTO log_records (${RECORD_COLUMNS.join(', ')}) VALUES (${RECORD_COLUMNS.map(() => '?').join(', ')})
         ON CONFLICT (run_id, id) DO UPDATE SET ${updates.join(', ')}
         WHERE excluded.otel_root_key IS NULL OR log_records.otel_root_key IS NULL OR excluded.otel_root_key <= log_records.otel_root_key`,
      ),
    );
    // A new record, under the rowid it is given (the next free one, in the order written): the record
    // index names records by rowid, a group of them by its first (terms-index.ts). A statement of its
    // own: one that may update (the upsert) carries the index's trigger, whose program cost every
    // insert a third of its time though it never ran there.
    this.insertNew = lazily(() => db.prepare(`INSERT INTO log_records (rowid, ${RECORD_COLUMNS.join(', ')}) VALUES (?, ${RECORD_COLUMNS.map(() => '?').join(', ')})`));
    this.mark = db.prepare('INSERT OR IGNORE INTO run_columns (run_id, column_id) VALUES (?, ?)');
    this.present = db.prepare('SELECT column_id FROM run_columns WHERE run_id = ?').pluck();
    // One statement per batch each (ids passed as a JSON array): the loops stay in SQLite's C code.
    // Parents and children are linked within the run only.
    this.markParents = db.prepare(
      'UPDATE log_records SET has_children = 1 WHERE run_id = ? AND has_children = 0 AND id IN (SELECT value FROM json_each(?))',
    );
    this.markFoundParents = db.prepare(
      `UPDATE log_records SET has_children = 1 WHERE run_id = @run AND has_children = 0 AND id IN (
         SELECT parent_id FROM log_records WHERE run_id = @run AND parent_id IN (SELECT value FROM json_each(@ids)))`,
    );
    // A record sent again under another parent (or none) leaves its former parent: that one keeps
    // has_children only while another child still names it.
    // And a record of another kind under one of the ids is refused (kindClash): read together, one lookup an id.
    this.storedOf = db
      // The ids as the outer loop (CROSS JOIN keeps them there), each found by (run_id, id): left to
      // itself the planner walked the run's children through (run_id, parent_id), the whole run each batch.
      .prepare('SELECT l.id, l.type, l.parent_id, l.metric_info, l.rowid FROM json_each(@ids) AS j CROSS JOIN log_records AS l ON l.run_id = @run AND l.id = j.value')
      .raw();
    this.lastRowid = db.prepare('SELECT coalesce(max(rowid), 0) FROM log_records').pluck();
    this.terms = new TermsIndexWrites(db);
    this.unmarkChildless = db.prepare(
      `UPDATE log_records SET has_children = 0 WHERE run_id = @run AND has_children = 1 AND id IN (SELECT value FROM json_each(@ids))
         AND NOT EXISTS (SELECT 1 FROM log_records c WHERE c.run_id = @run AND c.parent_id = log_records.id)`,
    );
    // Run by run (CROSS JOIN keeps runs the outer loop), each through the (run_id, is_trace, created_at)
    // index: a sweep finds the old records of each run without reading the others, where a bare
    // `created_at <` would scan the whole table. It answers each removed record's run and parent.
    this.removeOld = db
      .prepare(
        `DELETE FROM log_records WHERE rowid IN (
           SELECT l.rowid FROM runs r CROSS JOIN log_records l
           WHERE l.run_id = r.id AND l.is_trace IN (0, 1) AND l.created_at < ? LIMIT ?)
         RETURNING run_id, parent_id, id, trace_id`,
      )
      .raw();
    // A removed record's jobs go with it (their outcome would have nowhere to go).
    // By (run, trace key, record): the jobs' unique key.
    this.removeJobsOf = db.prepare(
      `DELETE FROM scoring_jobs WHERE rowid IN (
         SELECT j.rowid FROM json_each(@records) AS r CROSS JOIN scoring_jobs AS j
         WHERE j.run_id = @run AND j.trace_key = r.value ->> 1 AND j.record_id = r.value ->> 0)`,
    );
    this.byIds = lazily(() => db.prepare(`SELECT ${READ_COLUMNS.join(', ')} FROM log_records WHERE run_id = @run AND id IN (SELECT value FROM json_each(@ids))`));
    // Keyset pages in (created_at, id) order through log_records_by_run_time, both kinds of is_trace.
    this.keysFrom = db.prepare(
      `SELECT id, type, trace_id AS traceId, run_id AS runId, project_id AS projectId, created_at AS createdAt, is_complete AS isComplete FROM log_records
       WHERE run_id = @run AND is_trace IN (0, 1) AND type IN (SELECT value FROM json_each(@types))
         AND created_at >= @from AND created_at < @to AND (created_at, id) > (@afterAt, @afterId)
       ORDER BY created_at, id LIMIT @limit`,
    );
    // One step of a sweep, in one transaction (on the writer thread, one write of a group commit): a
    // parent that stays keeps has_children only while another child still names it, as after ingest.
    // Each run's parents are found by (run_id, id) and their children by (run_id, parent_id).
    this.expire = db.transaction((cutoff: number, limit: number): number => {
      const removed = this.removeOld.all(cutoff, limit) as Array<[string, string | null, string, string | null]>;
      const left = new Map<string, Set<string>>();
      const gone = new Map<string, Array<readonly [string, string]>>();
      for (const [runId, , id, traceId] of removed) gone.set(runId, [...(gone.get(runId) ?? []), [id, traceKey(traceId)]]);
      for (const [runId, records] of gone) this.removeJobsOf.run({ run: runId, records: JSON.stringify(records) });
      for (const [runId, parentId] of removed) {
        if (parentId === null) continue;
        const parents = left.get(runId) ?? new Set<string>();
        left.set(runId, parents.add(parentId));
      }
      for (const [runId, parents] of left) this.unmarkChildless.run({ run: runId, ids: JSON.stringify([...parents]) });
      return removed.length;
    });
  }

  ingest(runId: RunId, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>, jobs: ReadonlyArray<NewScoringJob> = []): Result<void> {
    const { rows, terms } = rowsOf(runId, records);
    return this.ingestRows(runId, rows, presentColumns, groupJobs(jobs), terms);
  }

  /**
   * `ingest` on rows already mapped: the writer thread's form of it, so that the mapping (and its
   * JSON encoding) happens on the caller's thread and only flat rows cross to the writer; and so do the
   * terms of the record index (chunkTermsOf), worked out here when not given.
   */
  ingestRows(runId: RunId, rows: ReadonlyArray<RecordValues>, presentColumns: ReadonlyArray<string>, jobs: ReadonlyArray<JobGroup> = [], terms?: ReadonlyArray<string>): Result<void> {
    return run(() => this.writeRows(runId, rows, presentColumns, terms ?? chunkTermsOf(runId, rows), jobs), undefined, notFound('run', runId));
  }

  ingestIntoNewRun(newRun: Run, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>): Result<void> {
    const { rows, terms } = rowsOf(newRun.id, records);
    return this.ingestRowsIntoNewRun(newRun, rows, presentColumns, terms);
  }

  /**
   * `ingestIntoNewRun` on rows already mapped (the writer thread's form, as `ingestRows`). The run and
   * the records in one transaction (a savepoint within the writer thread's group commit): one write,
   * stored whole or refused whole, so a refused ingest leaves no run.
   */
  ingestRowsIntoNewRun(newRun: Run, rows: ReadonlyArray<RecordValues>, presentColumns: ReadonlyArray<string>, terms?: ReadonlyArray<string>): Result<void> {
    return run(
      () =>
        this.together.immediate(() => {
          this.insertRun(newRun);
          this.writeRows(newRun.id, rows, presentColumns, terms ?? chunkTermsOf(newRun.id, rows));
        }),
      runNameTaken(newRun),
      notFound('project', newRun.projectId),
    );
  }

  /** Stores rows of a run that must exist (NotFound, by Abort, when it is gone or its project retired). */
  private writeRows(
    runId: RunId,
    rows: ReadonlyArray<RecordValues>,
    presentColumns: ReadonlyArray<string>,
    terms: ReadonlyArray<string>,
    sentJobs: ReadonlyArray<JobGroup> = [],
    write: 'ingest' | 'patch' = 'ingest',
  ): void {
    this.underLiveRun(runId, () => {
      // What these records were, if they were stored before: read before they are replaced.
      const stored = (this.storedOf.all({ run: runId, ids: JSON.stringify(rows.map((row) => row[VALUE_INDEX.id])) }) as Array<[string, NodeType, string | null, string, number]>).map(
        ([id, type, parentId, metricInfo, rowid]) => ({ id, type, parentId, metricInfo, rowid }),
      );
      if (stored.length > 0) {
        const clash = firstKindClash(stored, new Map(rows.map((row) => [row[VALUE_INDEX.id] as string, row[VALUE_INDEX.type] as NodeType])));
        if (clash !== undefined) throw new Abort(clash);
      }
      const formerParents = new Set(stored.flatMap((r) => (r.parentId === null ? [] : [r.parentId])));
      const { jobs, afresh } = this.scoringOf(runId, rows, stored, sentJobs, write);
      keepScoring(rows, stored, jobs, afresh);
      const groups = this.writeRecords(rows, stored);
      // Out of order: a parent stored earlier learns of its new children; a parent arriving late finds its own.
      const parents = new Set<string>();
      const childless: string[] = [];
      for (const row of rows) {
        const parentId = row[VALUE_INDEX.parentId];
        if (typeof parentId === 'string') parents.add(parentId);
        if (row[VALUE_INDEX.hasChildren] === 0) childless.push(row[VALUE_INDEX.id] as string);
      }
      if (parents.size > 0) this.markParents.run(runId, JSON.stringify([...parents]));
      if (childless.length > 0) this.markFoundParents.run({ run: runId, ids: JSON.stringify(childless) });
      const left = [...formerParents].filter((p) => !parents.has(p));
      if (left.length > 0) this.unmarkChildless.run({ run: runId, ids: JSON.stringify(left) });
      for (const c of presentColumns) this.mark.run(runId, c);
      // The outbox: the records' scoring jobs in their transaction. Stamped with this process's clock:
      // a job is due at once, and older jobs due before it are claimed first.
      if (jobs.length > 0) {
        const at = Date.now();
        if (afresh.size > 0) this.jobs.rescore(jobsOfRecords(jobs, (id) => afresh.has(id)), at);
        this.jobs.insertNew(jobs, at);
      }
      // Last: SQLite opens a savepoint for many a statement, and FTS5 writes what it holds in memory to a
      // segment of its own at each. Written among the rows, a group's document made a segment each (and as
      // many merges), which cost four times the index's own work.
      for (const g of groups) this.terms.group(g.first, g.size, terms[g.chunk] ?? '');
    });
  }

  /**
   * What the write does with the jobs sent (scoringOnWrite): the jobs to store, and the records scored
   * afresh. A record not stored before is read from its row's completeness alone; one stored before is
   * read whole, before and after, to see whether what its scorers read changed (a retry, or a record
   * completed later: not the ingest's usual path, which stores new records).
   */
  private scoringOf(
    runId: RunId,
    rows: ReadonlyArray<RecordValues>,
    stored: ReadonlyArray<{ readonly id: string }>,
    sent: ReadonlyArray<JobGroup>,
    write: 'ingest' | 'patch',
  ): { readonly jobs: ReadonlyArray<JobGroup>; readonly afresh: ReadonlySet<string> } {
    const afresh = new Set<string>();
    if (sent.length === 0) return { jobs: sent, afresh };
    const scored = new Set(sent.flatMap((g) => g.records.map(([id]) => id)));
    const before = new Map<string, LogRecord>();
    const storedScored = stored.filter((r) => scored.has(r.id)).map((r) => r.id);
    if (storedScored.length > 0) for (const row of this.byIds().all({ run: runId, ids: JSON.stringify(storedScored) })) before.set((row as { id: string }).id, recordFromRow(row));
    const none = new Set<string>();
    for (const row of rows) {
      const id = row[VALUE_INDEX.id] as string;
      if (!scored.has(id)) continue;
      const was = before.get(id);
      const decision =
        was === undefined
          ? isReadyToScore({ type: row[VALUE_INDEX.type] as NodeType, isComplete: row[VALUE_INDEX.isComplete] === 1 }) ? 'missing' : 'none'
          : scoringOnWrite(was, recordFromValues(row), write);
      if (decision === 'none') none.add(id);
      else if (decision === 'afresh') afresh.add(id);
    }
    return { jobs: none.size === 0 ? sent : jobsOfRecords(sent, (id) => !none.has(id)), afresh };
  }

  /**
   * The rows, new records under the next free rowids in their order; and, for the record index, the
   * groups of new records each chunk of CHUNK_RECORDS rows holds (whose rowids follow one another). A
   * record stored before (or twice in `rows`) is updated in place, and the index's trigger gives it a
   * document of its own (migration 15).
   */
  private writeRecords(rows: ReadonlyArray<RecordValues>, stored: ReadonlyArray<{ id: string; rowid: number }>): Array<{ chunk: number; first: number; size: number }> {
    const groups: Array<{ chunk: number; first: number; size: number }> = [];
    const rowidOf = new Map(stored.map((r) => [r.id, r.rowid]));
    let next = (this.lastRowid.get() as number) + 1;
    for (let start = 0; start < rows.length; start += CHUNK_RECORDS) {
      let first: number | undefined;
      let size = 0;
      for (let i = start; i < Math.min(start + CHUNK_RECORDS, rows.length); i++) {
        const row = rows[i]!;
        const id = row[VALUE_INDEX.id] as string;
        const known = rowidOf.get(id);
        if (known === undefined) {
          rowidOf.set(id, next);
          this.insertNew().run(next, ...row);
          first ??= next;
          size++;
          next++;
        } else this.upsert().run(row);
      }
      if (first !== undefined) groups.push({ chunk: start / CHUNK_RECORDS, first, size });
    }
    return groups;
  }

  /**
   * Looked up and, when none is found, stored in one IMMEDIATE transaction: the write lock is taken
   * first, so no other writer (the writer thread's group, or another process) stores one in between.
   */
  findOrCreateSession(runId: RunId, candidate: LogRecord): Result<LogRecord> {
    return run(
      () =>
        this.inOne.immediate(() => {
          const found = this.sessionOf().get(runId, candidate.externalId);
          if (found !== undefined) return recordFromRow(found);
          const { rows, terms } = rowsOf(runId, [candidate]);
          this.writeRows(runId, rows, presentColumns(candidate), terms);
          return candidate;
        }),
      undefined,
      notFound('run', runId),
    );
  }

  update(runId: RunId, id: string, target: PatchTarget, patch: RecordPatch, now: Date, jobs: ReadonlyArray<NewScoringJob> = []): Result<LogRecord> {
    return run(
      () =>
        this.inOne.immediate(() => {
          const found = this.recordOf().get(runId, id);
          const stored = found === undefined ? undefined : recordFromRow(found);
          if (stored === undefined || !isPatchTarget(stored, target)) throw new Abort(notFound(target, id));
          const updated = applyRecordPatch(stored, patch, now);
          const { rows, terms } = rowsOf(runId, [updated]);
          this.writeRows(runId, rows, presentColumns(updated), terms, groupJobs(jobs.filter((j) => j.recordId === id)), 'patch');
          // As stored: the entries the write made (pending for its jobs, earlier results dropped).
          return recordFromRow(this.recordOf().get(runId, id));
        }),
      undefined,
      notFound('run', runId),
    );
  }

  findByIds(runId: RunId, ids: ReadonlyArray<string>): Result<ReadonlyArray<LogRecord>> {
    return run(() => (ids.length === 0 ? [] : this.byIds().all({ run: runId, ids: JSON.stringify(ids) }).map(recordFromRow)));
  }

  listKeys(runId: RunId, q: RecordKeyQuery): Result<ReadonlyArray<RecordKey>> {
    return run(() =>
      (
        this.keysFrom.all({
          run: runId,
          types: JSON.stringify(q.types),
          from: q.createdAfter?.getTime() ?? Number.MIN_SAFE_INTEGER,
          to: q.createdBefore?.getTime() ?? Number.MAX_SAFE_INTEGER,
          afterAt: q.after?.createdAt.getTime() ?? Number.MIN_SAFE_INTEGER,
          afterId: q.after?.id ?? '',
          limit: q.limit,
        }) as Array<{ id: string; type: NodeType; traceId: string | null; runId: RunId; projectId: ProjectId; createdAt: number; isComplete: number }>
      ).map((k) => ({ ...k, createdAt: new Date(k.createdAt), isComplete: k.isComplete === 1 })),
    );
  }

  presentColumns(runId: RunId): Result<ReadonlySet<string>> {
    return run(() => new Set(this.present.all(runId) as string[]));
  }

  removeCreatedBefore(cutoff: Date, limit: number): Result<number> {
    // IMMEDIATE: the write lock first, as for ingest (see live-parent); nested in the writer thread's
    // group commit it is a savepoint all the same.
    return run(() => this.expire.immediate(cutoff.getTime(), limit));
  }

  /**
   * `handedAt` (Date.now() when the search was handed to a search thread): the time it then waited
   * behind other searches counts against its budget, which bounds how long its caller waits in all. One
   * whose budget ran out while it waited is answered at once, unread.
   */
  search(query: RecordQuery, handedAt?: number): Result<FoundPage<LogRecord>> {
    return run(() => {
      const left = query.maxMs - (handedAt === undefined ? 0 : Math.max(0, Date.now() - handedAt));
      if (left <= 0) throw new Abort(searchTimedOut(query.maxMs));
      this.deadline = performance.now() + left;
      const { sql, params } = compileSearch(query, leadingPath((sql) => this.statement(sql), query));
      try {
        // Row by row, so a page of large records stops at its budget instead of being read whole.
        const rows = this.statement(sql).iterate(...params) as IterableIterator<Record<string, unknown>>;
        return takePage(rows, { limit: query.page.limit, maxBytes: query.maxBytes, sizeOf: (row) => Number(row[SIZE_COLUMN]) }, recordFromRow);
      } catch (e) {
        throw e instanceof OutOfTime ? new Abort(searchTimedOut(query.maxMs)) : e;
      } finally {
        this.deadline = Number.POSITIVE_INFINITY;
      }
    });
  }

  /** The SQL depends only on the shape of a search (values are parameters): each shape is prepared once. */
  private readonly statements = new StatementCache((sql) => this.db.prepare(sql));
  private statement(sql: string): Database.Statement {
    return this.statements.of(sql);
  }

  /** The search statements kept, and the characters of their SQL. */
  heldStatements(): { readonly entries: number; readonly size: number } {
    return this.statements.held();
  }
}

/**
 * Prepared statements by their SQL, kept within two bounds, oldest first out. A prepared statement's
 * memory grows with its SQL (a plain search, 1.3 K characters, holds ~23 KB; one of 25 lists of 1,000
 * values, 76 K characters, ~5 MB), and every other length of a list is another shape: a bound on the
 * count alone let 256 such searches hold over a gigabyte. A statement larger than the whole budget is
 * used once and not kept. (An object of its own: with a writer thread the repository's write methods are
 * routed through an object whose prototype it is, which would shadow a counter kept on the repository.)
 */
class StatementCache {
  private readonly bySql = new Map<string, Database.Statement>();
  private chars = 0;

  constructor(private readonly prepare: (sql: string) => Database.Statement) {}

  of(sql: string): Database.Statement {
    const known = this.bySql.get(sql);
    if (known) return known;
    const stmt = this.prepare(sql);
    if (sql.length > MAX_STATEMENT_CHARS) return stmt;
    while (this.bySql.size >= MAX_STATEMENTS || this.chars + sql.length > MAX_STATEMENT_CHARS) {
      const oldest = this.bySql.keys().next().value!;
      this.bySql.delete(oldest);
      this.chars -= oldest.length;
    }
    this.bySql.set(sql, stmt);
    this.chars += sql.length;
    return stmt;
  }

  held(): { readonly entries: number; readonly size: number } {
    return { entries: this.bySql.size, size: this.chars };
  }
}

/** Prepared search statements kept: at most this many, of at most this many characters of SQL together (~30 MB prepared). */
const MAX_STATEMENTS = 256;
const MAX_STATEMENT_CHARS = 512 * 1024;
