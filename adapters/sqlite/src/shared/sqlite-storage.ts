// SQLite storage as the process uses it. `thread` (the server's default): one writer thread owns the
// only writing connection and commits writes in groups; record searches run on search threads, and the
// other reads (lookups by key) here, each on a read-only connection that sees every committed write (WAL). `inline`: one connection does both on this thread (the
// admin CLI, embedders that want no threads).
import type { DomainError, FoundPage, LogRecord, NewScoringJob, Run, RunId, ScorerId, ScorerVersion } from '@tracelight/domain';
import { type RecordQuery, type Repositories, type Result, type StorageHealth, buildRepositories } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import { heldDecodedJson } from './row-codecs';
import { run } from './run';
import { SqliteDatabase, type SqliteOptions } from './sqlite-database';
import { FileWatch } from './file-watch';
import { type DatabaseCopy, copyDatabase } from './sqlite-backup';
import { SqliteThread, type ThreadScripts } from './sqlite-thread';
import { SQLITE_REPOSITORIES, SQLITE_WRITES } from '../sqlite.repositories';
import { deflateLargeTexts, recordToValues } from '../tracing/log-record.mapper';
import { chunkTermsOf } from '../tracing/terms-index';
import { groupJobs } from '../evaluation/scoring-jobs.sql';
import type { SqliteLogRecordRepository } from '../tracing/sqlite-log-record.repository';
import type { RepositoryName } from './writer-protocol';

export interface SqliteStorageOptions extends Omit<SqliteOptions, 'readonly'> {
  /** Default `thread`. */
  readonly writer?: 'thread' | 'inline';
  /**
   * With a writer thread: how many threads run record searches, each on a read-only connection of its
   * own (default 2); 0 runs them on the caller's thread.
   */
  readonly searchThreads?: number;
  /** The threads' scripts: this adapter's compiled workers unless an app gives its bundles of them. */
  readonly threadScripts?: ThreadScripts;
  /** The script of a backup's process (backupTo): this adapter's compiled one unless an app gives its bundle of it. */
  readonly backupScript?: string;
  /** A writer thread started ahead of `open` (startSqliteWriter), used by `open` instead of starting one. */
  readonly writerStarted?: WriterStart;
}

/**
 * A writer thread started ahead of the storage's `open`, by an app that has more of its own code to
 * load: the thread loads its code and migrates the database meanwhile, on another core.
 */
export interface WriterStart {
  readonly thread: Promise<SqliteThread>;
}

/** Starts the writer thread `new SqliteStorage(options)` would start at `open`; give the result as `writerStarted`. */
export const startSqliteWriter = (options: SqliteStorageOptions): WriterStart => {
  const thread = SqliteThread.startWriter(writerData(options), options.threadScripts);
  // Awaited by `open`; a start that fails before then must not end the process as an unhandled rejection.
  thread.catch(() => undefined);
  return { thread };
};

const writerData = (options: SqliteStorageOptions) => ({
  path: options.path,
  synchronous: options.synchronous ?? 'FULL',
  ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
});
export const SqliteStorageToken = Symbol.for('tracelight.SqliteStorage');

/** The running thread with the fewest calls in flight: one being started again (none in flight) would only refuse. */
const leastBusy = (threads: ReadonlyArray<SqliteThread>): SqliteThread => {
  const running = threads.filter((t) => t.trouble === undefined);
  return (running.length > 0 ? running : threads).reduce((least, t) => (t.inFlight < least.inFlight ? t : least));
};

/**
 * The read repositories, with every write method sent to the writer thread instead, and record searches
 * (when `searching`) to the least busy of the search threads running, which `searchers` holds as they start.
 */
const routeCalls = (reads: Repositories, writer: SqliteThread, searchers: ReadonlyArray<SqliteThread>, searching: boolean): Repositories => {
  const routed = {} as Record<RepositoryName, unknown>;
  for (const name of Object.keys(SQLITE_WRITES) as RepositoryName[]) {
    // Unlisted methods (the reads) are found on the prototype: the read repository itself.
    const repository = Object.create(reads[name]) as Record<string, unknown>;
    for (const method of SQLITE_WRITES[name] as ReadonlyArray<string>) {
      repository[method] = (...args: unknown[]) => () => writer.call(name, method, args);
    }
    routed[name] = repository;
  }
  // Version numbers are given by the writer thread as it stores each version (appendBuilt), inside the
  // write's transaction: one above the highest stored, counting those written before it in the same
  // group commit, under the write lock every process takes. A version that is refused (no room, say)
  // holds no number, so the next one gets it and numbers have no gap. Numbering here, on the request
  // thread, ahead of the commit could not give a refused version's number back once a later one held
  // the next: a scorer's versions could start at 2, or skip one. `build` runs here (a function cannot
  // cross threads), with 0 for the number it does not know yet; the version is stored, and returned,
  // under its own number (ScorerVersionRepository.appendNext).
  (routed.scorerVersions as Record<string, unknown>)['appendNext'] =
    (scorerId: ScorerId, build: (version: number) => ScorerVersion): Result<ScorerVersion> =>
    () =>
      writer.call('scorerVersions', 'appendBuilt', [scorerId, build(0)]) as Promise<E.Either<DomainError, ScorerVersion>>;
  // Records are mapped to rows here, on the request thread, their record index terms worked out and their
  // large texts deflated: the writer thread gets flat rows and term lists (cheaper to pass between threads
  // than nested records) and spends its time on SQLite alone.
  (routed.logRecords as Record<string, unknown>)['ingest'] =
    (runId: RunId, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>, jobs: ReadonlyArray<NewScoringJob> = []): Result<void> =>
    () => {
      const rows = records.map(recordToValues);
      const terms = chunkTermsOf(runId, rows);
      return writer.call('logRecords', 'ingestRows', [runId, deflateLargeTexts(rows), presentColumns, groupJobs(jobs), terms]) as Promise<E.Either<DomainError, void>>;
    };
  (routed.logRecords as Record<string, unknown>)['ingestIntoNewRun'] =
    (newRun: Run, records: ReadonlyArray<LogRecord>, presentColumns: ReadonlyArray<string>): Result<void> =>
    () => {
      const rows = records.map(recordToValues);
      const terms = chunkTermsOf(newRun.id, rows);
      return writer.call('logRecords', 'ingestRowsIntoNewRun', [newRun, deflateLargeTexts(rows), presentColumns, terms]) as Promise<E.Either<DomainError, void>>;
    };
  // A search may read most of a large run before it has its page (seconds for a million spans): on a
  // search thread, not on the caller's, where it would hold every other request meanwhile. The threads
  // start behind the writer (SqliteStorage.open): until the first is running, searches run here.
  if (searching) {
    const here = reads.logRecords.search.bind(reads.logRecords);
    (routed.logRecords as Record<string, unknown>)['search'] =
      (query: RecordQuery): Result<FoundPage<LogRecord>> =>
        searchers.length === 0
          ? here(query)
          : () => leastBusy(searchers).call('logRecords', 'search', [query, Date.now()]) as Promise<E.Either<DomainError, FoundPage<LogRecord>>>;
  }
  return routed as unknown as Repositories;
};

export class SqliteStorage implements StorageHealth {
  private opened:
    | {
        readonly repositories: Repositories;
        readonly reads: Repositories;
        readonly reader: SqliteDatabase;
        readonly writer?: SqliteThread;
        readonly searchers: ReadonlyArray<SqliteThread>;
        /** The database file as the writer opened it (thread mode). */
        readonly file?: FileWatch;
        /** Settled once every search thread has started or failed to (they start behind the writer). */
        readonly warming: Promise<void>;
      }
    | undefined;
  private warmFailure: string | undefined;

  constructor(private readonly options: SqliteStorageOptions) {}

  /**
   * Opens (and migrates) the database. Ports are usable once this resolves: the search threads are still
   * starting then (each loads its code, a few hundred milliseconds on a busy machine), and searches run on
   * this thread until the first is up, so that a server can answer without waiting for them (`warmed`).
   */
  async open(): Promise<void> {
    if (this.opened) return;
    if ((this.options.writer ?? 'thread') === 'inline') return this.openInline();
    const writer = await (this.options.writerStarted?.thread ?? SqliteThread.startWriter(writerData(this.options), this.options.threadScripts));
    let reader: SqliteDatabase;
    try {
      reader = new SqliteDatabase({ path: this.options.path, readonly: true });
    } catch (e) {
      await writer.close();
      throw e;
    }
    const reads = buildRepositories(SQLITE_REPOSITORIES, reader);
    // Once the writer has migrated the schema; each joins the searches as it is up.
    const count = this.options.searchThreads ?? 2;
    const searchers: SqliteThread[] = [];
    const warming = Promise.allSettled(
      Array.from({ length: count }, () =>
        SqliteThread.startSearch(this.options.path, this.options.threadScripts).then(async (thread) => {
          // Closed meanwhile: the thread started too late to serve, and goes at once.
          if (this.opened?.searchers !== searchers) await thread.close();
          else searchers.push(thread);
        }),
      ),
    ).then((outcomes) => {
      const failed = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      if (failed) this.warmFailure = failed.reason instanceof Error ? failed.reason.message : String(failed.reason);
    });
    // Writes into a file no longer at its path would be acknowledged and then lost: refused instead.
    const file = FileWatch.of(this.options.path);
    if (file) writer.guard = () => file.trouble();
    this.opened = { reader, writer, searchers, reads, warming, repositories: routeCalls(reads, writer, searchers, count > 0), ...(file ? { file } : {}) };
  }

  /**
   * Resolves once the threads that start behind `open` (the search threads) are running; rejects with
   * the reason one could not start (searches then run on the threads that did, or on this one).
   */
  async warmed(): Promise<void> {
    await this.opened?.warming;
    if (this.warmFailure !== undefined) throw new Error(`a storage search thread could not start: ${this.warmFailure}`);
  }

  /** The `inline` mode needs no waiting. */
  openInline(): void {
    if (this.opened) return;
    const database = new SqliteDatabase(this.options);
    const reads = buildRepositories(SQLITE_REPOSITORIES, database);
    this.opened = { reader: database, searchers: [], reads, repositories: reads, warming: Promise.resolve() };
  }

  get repositories(): Repositories {
    if (!this.opened) throw new Error('SqliteStorage is not open: await open() before resolving repositories');
    return this.opened.repositories;
  }

  /**
   * Runs `work`, whose reads through `repositories` then all see the database as it was when it began
   * (one read transaction: WAL keeps that snapshot while other processes write), for an export that
   * pages through a project the server goes on writing. Inline mode only, where every read is on this
   * one connection; `work` must not write. While it runs, other processes' checkpoints cannot go past
   * its snapshot, so the write-ahead log grows with what they write meanwhile.
   */
  async readingOneSnapshot<A>(work: () => Promise<A>): Promise<A> {
    const opened = this.opened;
    if (!opened || opened.writer !== undefined) throw new Error('readingOneSnapshot needs storage opened inline');
    const db = opened.reader.db;
    db.exec('BEGIN');
    try {
      // The snapshot is taken at the first read, not at BEGIN.
      db.prepare('SELECT count(*) FROM schema_migrations').get();
      return await work();
    } finally {
      db.exec('COMMIT');
    }
  }

  /**
   * What this process's reads keep in memory that grows with what clients ask or store, by name for
   * /metrics: the prepared search statements, and the JSON texts remembered decoded.
   */
  held(): Record<string, { readonly entries: number; readonly size: number }> {
    const logRecords = this.opened?.reads.logRecords as SqliteLogRecordRepository | undefined;
    const decoded = Object.entries(heldDecodedJson()).map(([name, held]) => [`decoded_json.${name}`, held] as const);
    // This thread's, and each search thread's as it last said.
    const statements = [logRecords?.heldStatements() ?? { entries: 0, size: 0 }, ...(this.opened?.searchers ?? []).map((s) => s.held)];
    const search_statements = statements.reduce((all, h) => ({ entries: all.entries + h.entries, size: all.size + h.size }));
    return { search_statements, ...Object.fromEntries(decoded) };
  }

  /**
   * Ready when a read answers and, in thread mode, the database file is still the one opened at its
   * path, and the writer thread and a search thread (if any) are running.
   */
  ping(): Result<void> {
    return run(() => {
      if (!this.opened) throw new Error('storage is not open');
      // One search thread running is enough to search: the others are being started again.
      const searchers = this.opened.searchers;
      const trouble =
        this.opened.writer?.trouble ?? this.opened.file?.trouble() ?? (searchers.every((t) => t.trouble !== undefined) ? searchers[0]?.trouble : undefined);
      if (trouble !== undefined) throw new Error(trouble);
      this.opened.reader.db.prepare('SELECT 1').get();
    });
  }

  /**
   * Starts a consistent copy of the whole database into `file`, an empty file the caller has made (with
   * the mode it wants), taken while other connections and processes (a running server) go on writing:
   * `VACUUM INTO` reads one snapshot (a WAL reader blocks no writer) and writes it compacted, with no
   * WAL of its own. It runs in a process of its own (copyDatabase), so that it can be stopped at once.
   */
  backupTo(file: string): DatabaseCopy {
    if (!this.opened) throw new Error('storage is not open');
    return copyDatabase(this.options.path, file, this.options.backupScript);
  }

  /**
   * Finishes queued writes, then closes every connection: the reading one first, so that the writing
   * one closes last. The last connection to close checkpoints the write-ahead log into the file and
   * removes it, which a read-only one cannot do: the file alone is then the whole database.
   */
  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    if (!opened) return;
    opened.reader.close();
    // A search thread still starting closes itself once up (open); those up are closed here.
    await opened.warming;
    await Promise.all(opened.searchers.map((s) => s.close()));
    await opened.writer?.close();
  }
}
