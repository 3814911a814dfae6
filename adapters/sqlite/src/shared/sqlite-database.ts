// Opens the SQLite file in WAL mode and brings its schema up to date, one migration per transaction.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Migration, MIGRATIONS } from './migrations';
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
      return;
    }
    if (options.path !== ':memory:') {
      fs.mkdirSync(path.dirname(path.resolve(options.path)), { recursive: true });
      // It holds password and key hashes and sealed secrets: owner-only. SQLite gives its -wal and
      // -shm files the database file's mode, so creating it 0600 covers them too.
      if (!fs.existsSync(options.path)) fs.closeSync(fs.openSync(options.path, 'a', 0o600));
    }
    this.db = new Database(options.path);
    try {
      this.open(options, migrations);
    } catch (e) {
      this.db.close();
      throw noRoom(e, `no room to open the database ${options.path}`, 'Nothing was changed');
    }
  }

  private open(options: SqliteOptions, migrations: ReadonlyArray<Migration>): void {
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('foreign_keys = ON');
    // What is deleted (a project, records past retention) is overwritten with zeros, not only freed: free
    // pages would otherwise keep it in the file, readable by whoever gets a copy, until reused.
    this.db.pragma('secure_delete = ON');
    this.db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
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
        db.exec(m.up);
        db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
      }).immediate();
    } catch (e) {
      // The migration's transaction is undone whole; a rebuild may need a few times the table's size.
      throw noRoom(e, `no room to apply migration ${m.version} (${m.name})`, 'Nothing of it was applied');
    }
  }
};
