// The storage settings, read from the environment by every process that opens the database (the
// server, its offload workers, the admin CLI) through this one decoder: which database, where the data
// dir is, and how SQLite opens its file. A process that read them otherwise could ignore a quota or
// take a mistyped URL for another database.
import * as path from 'node:path';
import * as E from 'fp-ts/Either';
import { byteSize } from './sizes';

export type Env = Readonly<Record<string, string | undefined>>;

export type DatabaseConfig =
  | { readonly engine: 'sqlite'; readonly path: string }
  | { readonly engine: 'mongodb'; readonly url: string };

export interface StorageConfig {
  readonly dataDir: string;
  readonly database: DatabaseConfig;
  readonly sqliteSynchronous: 'FULL' | 'NORMAL';
  /** TRACELIGHT_SQLITE_MAX_BYTES: the SQLite file grows to at most this size; undefined: no quota. */
  readonly sqliteMaxBytes: number | undefined;
}

/** The storage variables, their defaults and what they do, in Markdown: rows of docs/configuration.md's table. */
export const STORAGE_VARIABLES: ReadonlyArray<readonly [name: string, defaultValue: string, description: string]> = [
  ['TRACELIGHT_DATA_DIR', '`./.tracelight`', 'Where the SQLite file and the generated secret key live (git-ignored).'],
  ['TRACELIGHT_DATABASE_URL', '`sqlite:<data dir>/tracelight.db`', '`sqlite:<path>`, or `mongodb://…` / `mongodb+srv://…` for MongoDB.'],
  ['TRACELIGHT_SQLITE_SYNCHRONOUS', '`FULL`', '`FULL`: an acknowledged write survives power loss. `NORMAL`: survives a process crash; faster.'],
  ['TRACELIGHT_SQLITE_MAX_BYTES', '— (no quota)', 'Largest the SQLite database file may grow (`512mb`, `20gb`; at least `64kb`): a write that would need more is refused with 507, exactly as on a full disk (docs/storage.md, "When storage is full"). The write-ahead log (`-wal`: about 4 MB, or during a burst the burst\'s writes, trimmed back to 64 MiB once checkpointed) comes on top. Applied by the server, its offload workers and the admin CLI.'],
];

const database = (env: Env, dataDir: string): E.Either<string, DatabaseConfig> => {
  const raw = env['TRACELIGHT_DATABASE_URL'];
  if (raw === undefined || raw === '') return E.right({ engine: 'sqlite', path: path.join(dataDir, 'tracelight.db') });
  if (raw.startsWith('mongodb://') || raw.startsWith('mongodb+srv://')) return E.right({ engine: 'mongodb', url: raw });
  if (raw.startsWith('sqlite:')) {
    const file = raw.slice('sqlite:'.length).replace(/^\/\//, '');
    return file ? E.right({ engine: 'sqlite', path: path.resolve(file) }) : E.left('TRACELIGHT_DATABASE_URL sqlite: needs a file path');
  }
  // A URL may carry a password: the message shows the scheme it got, never the rest.
  return E.left(`TRACELIGHT_DATABASE_URL must start with sqlite:, mongodb:// or mongodb+srv://, got one starting ${JSON.stringify(raw.slice(0, Math.max(0, raw.search(/[:/@]|$/)) + 1))}`);
};

const synchronous = (env: Env): E.Either<string, StorageConfig['sqliteSynchronous']> => {
  const raw = env['TRACELIGHT_SQLITE_SYNCHRONOUS'] || 'FULL';
  return raw === 'FULL' || raw === 'NORMAL' ? E.right(raw) : E.left(`TRACELIGHT_SQLITE_SYNCHRONOUS must be FULL or NORMAL, got ${JSON.stringify(raw)}`);
};

const quota = (env: Env): E.Either<string, number | undefined> => {
  const raw = env['TRACELIGHT_SQLITE_MAX_BYTES'] || undefined;
  if (raw === undefined) return E.right(undefined);
  const bytes = byteSize(raw, true);
  // Below 64 KiB not even the schema fits.
  return bytes !== undefined && bytes >= 65_536 && Number.isSafeInteger(bytes)
    ? E.right(bytes)
    : E.left(`TRACELIGHT_SQLITE_MAX_BYTES must be a size of at least 64kb, like 512mb or 20gb, got ${JSON.stringify(raw)}`);
};

/** The storage settings, or every problem with them (in the order of STORAGE_VARIABLES), so one fix covers all. */
export const loadStorageConfig = (env: Env): E.Either<ReadonlyArray<string>, StorageConfig> => {
  const dataDir = path.resolve(env['TRACELIGHT_DATA_DIR'] || './.tracelight');
  const db = database(env, dataDir);
  const sync = synchronous(env);
  const maxBytes = quota(env);
  if (E.isRight(db) && E.isRight(sync) && E.isRight(maxBytes))
    return E.right({ dataDir, database: db.right, sqliteSynchronous: sync.right, sqliteMaxBytes: maxBytes.right });
  return E.left([db, sync, maxBytes].flatMap((r) => (E.isLeft(r) ? [r.left] : [])));
};
