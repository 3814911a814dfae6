// Opens the SQLite file in WAL mode and brings its schema up to date, one migration per transaction.
import Database from 'better-sqlite3';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Migration, MIGRATIONS } from './migrations';
import { RECORD_TERMS, recordTerms } from '../tracing/terms-index';
import { INFLATE, inflate } from '../tracing/compressed-text';
import { NoRoomToStart } from '@tracelight/ports';
import { isStorageFull } from './run';

const noRoom = (e: unknown, what: string, undone: string): unknown =>
  isStorageFull(e)
    ? new NoRoomToStart(
        `${what}: ${(e as { code: string }).code} (${(e as Error).message}). ${undone}: free space on its disk (or raise TRACELIGHT_SQLITE_MAX_BYTES) and start again`,
      )
    : e;

export interface SqliteOptions {
  readonly path: string;
  /** FULL: a committed write survives power loss. NORMAL: survives a process crash, faster. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * A read-only connection to a database another connection (the writer) has created and migrated:
   * it never migrates, and any write through it fails instead of taking the write lock.
   */
  readonly readonly?: boolean;
  /**
   * A quota: the database file grows to at most this many bytes (rounded down to whole pages), and a
   * write that would need more fails with SQLITE_FULL, as on a full disk. The write-ahead log is not
   * counted. Per connection: every writing connection sets it. Undefined: no quota.
   */
  readonly maxBytes?: number;
}
export const SqliteOptions = Symbol.for('tracelight.SqliteOptions');

/**
 * The write-ahead log is trimmed back to this size when it starts over after a checkpoint: without a
 * limit it keeps the size of the largest burst it ever held (a 10,000-record ingest, a migration that
 * rebuilds a table), on disk for good.
 */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

export class SqliteDatabase {
  readonly db: Database.Database;

  constructor(options: SqliteOptions, migrations: ReadonlyArray<Migration> = MIGRATIONS) {
    if (options.readonly) {
      this.db = new Database(options.path, { readonly: true, fileMustExist: true });
      this.db.pragma('busy_timeout = 5000');
      registerFunctions(this.db);
      return;
    }
    if (options.path !== ':memory:') {
      fs.mkdirSync(path.dirname(path.resolve(options.path)), { recursive: true });
      if (!fs.existsSync(options.path))
        try {
          createInWalMode(options.path);
        } catch (e) {
          throw noRoom(e, `no room to create the database ${options.path}`, 'Nothing was made');
        }
    }
    this.db = new Database(options.path);
    registerFunctions(this.db);
    try {
      this.open(options, migrations);
    } catch (e) {
      this.db.close();
      throw noRoom(e, `no room to open the database ${options.path}`, 'Nothing was changed');
    }
  }

  private open(options: SqliteOptions, migrations: ReadonlyArray<Migration>): void {
    turnToWal(this.db);
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('foreign_keys = ON');
    // What is deleted (a project, records past retention) is overwritten with zeros, not only freed: free
    // pages would otherwise keep it in the file, readable by whoever gets a copy, until reused.
    this.db.pragma('secure_delete = ON');
    this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    // A commit checkpoints once the log holds as much as it is trimmed back to, not SQLite's 1,000 pages
    // (4 MiB): a page written by many commits in between (an index's, the record index's) is copied into
    // the file once. JSON ingest of the queries bench: 18,521 spans/s against 15,736, 82.4 µs of CPU a
    // span against 87.4 (docs/performance.md), for a checkpoint that takes longer when it comes.
    this.db.pragma(`wal_autocheckpoint = ${Math.floor(WAL_SIZE_LIMIT_BYTES / (this.db.pragma('page_size', { simple: true }) as number))}`);
    // Before migrating: a migration that would not fit fails as any other write does. SQLite never
    // sets the limit below the pages already in use, so a quota smaller than the file stops growth.
    if (options.maxBytes !== undefined)
      this.db.pragma(`max_page_count = ${Math.max(1, Math.floor(options.maxBytes / (this.db.pragma('page_size', { simple: true }) as number)))}`);
    // Another process may be applying a long migration (rebuilding a large table): wait for it, up to
    // ten minutes, rather than fail to start after the usual five seconds.
    this.db.pragma('busy_timeout = 600000');
    migrate(this.db, migrations);
    this.db.pragma('busy_timeout = 5000');
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
export const SqliteDatabaseToken = Symbol.for('tracelight.SqliteDatabase');

/**
 * The SQL functions of our own that the schema's triggers and the searches call, on every connection
 * (read-only ones too: a write statement prepared there is compiled with its triggers), before
 * migrating: the record index's terms (migration 15's trigger, on whatever connection updates a
 * record), and a deflated text inflated (migration 17).
 */
const registerFunctions = (db: Database.Database): void => {
  db.function(RECORD_TERMS, { deterministic: true, varargs: true }, recordTerms);
  db.function(INFLATE, { deterministic: true }, inflate);
};

/** What `link` fails with on a file system that has no hard links (some network and FAT file systems). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/**
 * Makes a new, empty database file at `file`, in WAL mode from the moment it is there, unless another
 * process makes one first; true if this call made it.
 *
 * Turning a rollback-journal file to WAL reads its header and then writes it: a read turned into a
 * write, which SQLite refuses at once, without its busy handler, while another connection holds the
 * write lock. Two replicas starting together on a new database both turned the file they had made (or
 * found) empty to WAL, and the second could fail to start with "database is locked". So the file is
 * built under a name of its own beside `file`, turned to WAL there, and linked to `file`: a link never
 * replaces a file, so the first process to link wins and the others open its file, which no process
 * ever sees in any mode but WAL. (Where the file system has no hard links, the file is made empty, as
 * it was before, and turned to WAL when opened.)
 *
 * `link` is `fs.linkSync` but in a test of a file system without hard links.
 *
 * It holds password and key hashes and sealed secrets: created 0600. SQLite gives the -wal and -shm
 * files the database file's mode, so that covers them too.
 */
export const createInWalMode = (file: string, link: (existing: string, name: string) => void = fs.linkSync): boolean => {
  // Random, not only the pid: replicas in containers of their own share a volume and often a pid (1).
  // Never removed by another process (it cannot tell one still building from one killed meanwhile);
  // only a process killed in those few milliseconds leaves one, an empty database.
  const building = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}-${crypto.randomBytes(6).toString('hex')}.new`);
  try {
    fs.closeSync(fs.openSync(building, 'wx', 0o600));
    const db = new Database(building);
    try {
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    try {
      link(building, file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (!NO_HARD_LINKS.has(code ?? '')) throw e;
      // A file system without hard links: an empty file, turned to WAL when opened (`turnToWal`, which
      // asks again while another process is doing it).
      try {
        fs.closeSync(fs.openSync(file, 'wx', 0o600));
      } catch (e2) {
        if ((e2 as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw e2;
      }
    }
    // The new name is durable before anything is written under it.
    const dir = fs.openSync(path.dirname(path.resolve(file)), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
    return true;
  } finally {
    fs.rmSync(building, { force: true });
  }
};

/** How long opening a rollback-journal file goes on asking for WAL while another connection writes it. */
const TURN_TO_WAL_MS = 5_000;

/**
 * `PRAGMA journal_mode = WAL`, asked again while another connection holds the write lock. A file made
 * by `createInWalMode` is WAL already and this changes nothing; one that is not (a backup's copy put
 * back, which `VACUUM INTO` writes in rollback-journal mode; an empty file made by hand) is turned here,
 * a read of its header turned into a write, which SQLite refuses at once, without its busy handler,
 * while another process writes the file: replicas starting together on a restored copy. Asked again
 * once that process is done, the file is WAL already.
 *
 * The failure is told by its code, never by `instanceof SqliteError`: better-sqlite3's native part
 * keeps the error class of the first copy of the module loaded in the process, so in a process that
 * loads the module more than once (Jest loads it once per test file) the check is false, and the
 * retry it guarded never ran.
 */
const turnToWal = (db: Database.Database): void => {
  const until = Date.now() + TURN_TO_WAL_MS;
  for (let waitMs = 5; ; waitMs = Math.min(waitMs * 2, 100)) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if (!/^SQLITE_BUSY/.test(String((e as { code?: unknown }).code)) || Date.now() >= until) throw e;
      // Opening is synchronous (a constructor, on the thread that owns the connection): a blocking pause.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, waitMs);
    }
  }
};

export const migrate = (db: Database.Database, migrations: ReadonlyArray<Migration>): void => {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL) STRICT`);
  const applied = new Set(
    db.prepare('SELECT version FROM schema_migrations').all().map((r) => (r as { version: number }).version),
  );
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...applied);
  if (newest > known)
    throw new Error(`the database is at schema version ${newest}, newer than this build knows (${known}): upgrade Tracelight`);
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(m.version)) continue;
    try {
      db.transaction(() => {
        // Another process may have applied it since we looked: re-check inside the write lock.
        if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return;
        if (typeof m.up === 'string') db.exec(m.up);
        else m.up(db);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      }).immediate();
    } catch (e) {
      // The migration's transaction is undone whole; a rebuild may need a few times the table's size.
      if (isStorageFull(e)) throw noRoom(e, `no room to apply migration ${m.version} (${m.name})`, 'Nothing of it was applied');
      // Named, so that a start that fails says which step of the upgrade did and that nothing of it stayed.
      throw new Error(`migration ${m.version} (${m.name}) failed, nothing of it was applied: ${(e as Error).message}`, { cause: e });
    }
  }
};
