// Opens the SQLite file in WAL mode and brings its schema up to date, one migration per transaction.
import Database from 'better-sqlite3';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Migration, MIGRATIONS } from './migrations';

export interface SqliteOptions {
  readonly path: string;
  /** FULL: a committed write survives power loss. NORMAL: survives a process crash, faster. */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * A read-only connection to a database another connection (the writer) has created and migrated:
   * it never migrates, and any write through it fails instead of taking the write lock.
   */
  readonly readonly?: boolean;
}
export const SqliteOptions = Symbol.for('tracelight.SqliteOptions');

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
    this.db.pragma('journal_mode = WAL');
    this.db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
    this.db.pragma('foreign_keys = ON');
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
    db.transaction(() => {
      // Another process may have applied it since we looked: re-check inside the write lock.
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(m.version)) return;
      db.exec(m.up);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
    }).immediate();
  }
};
