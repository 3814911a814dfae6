// The engine the black-box suites run on, and a reader of a test server's storage on it, as another
// process would read it: SQLite's file, or the server's MongoDB database. For what no route shows: what
// is left of a deleted project, that a refused request wrote nothing, that a secret is not kept in clear.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunningServer } from './server';

// Each adapter's own driver (the test package has none of its own), read as another process would.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const SqliteDatabase = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const mongodb = require(path.resolve(__dirname, '../../adapters/mongodb/node_modules/mongodb')) as typeof import('../../adapters/mongodb/node_modules/mongodb');

export type Engine = 'sqlite' | 'mongodb';

/** TRACELIGHT_E2E_DATABASE_URL's engine (see server.ts); SQLite when it is unset. */
export const E2E_ENGINE: Engine = (process.env['TRACELIGHT_E2E_DATABASE_URL'] ?? '').startsWith('mongodb') ? 'mongodb' : 'sqlite';

/**
 * `describe` for what SQLite alone has (its file, write-ahead log, caches, size quota), skipped on
 * another engine: its name says so, as a skipped suite's name is all a run shows of it.
 */
export const describeSqliteOnly = (name: string, fn: () => void): void => {
  if (!/SQLite/.test(name)) throw new Error(`a SQLite-only suite says so in its name: ${name}`);
  (E2E_ENGINE === 'sqlite' ? describe : describe.skip)(name, fn);
};

export interface StoredData {
  readonly engine: Engine;
  /**
   * Per table (collection), the rows (documents) that name the project or one of the runs, in every
   * table found in the database, so that one a later migration adds is looked at too.
   */
  rowsNaming(projectId: string, runIds: ReadonlyArray<string>): Promise<Record<string, number>>;
  /**
   * Every row of every table (document of every collection), hashed: equal fingerprints mean nothing was
   * written. An API key's last use is left out: it records that the key was presented (at most once a
   * minute), whatever became of the request, so it is bookkeeping, not something the request wrote.
   */
  fingerprint(): Promise<string>;
  /** Whether the bytes the database holds contain `text` (as UTF-8): SQLite's files, MongoDB's documents as BSON. */
  holds(text: string): Promise<boolean>;
  /** How many traces, spans and sessions the run holds. */
  recordCount(runId: string): Promise<number>;
  /** The run's records other than traces whose trace is not stored: what a request half written would leave. */
  withoutTheirTrace(runId: string): Promise<number>;
  /** The stored password hash of the user with this email. */
  passwordHashOf(email: string): Promise<string | undefined>;
  close(): Promise<void>;
}

type Server = Pick<RunningServer, 'dataDir' | 'storageEnv'>;

/** Opens the server's storage for reading: where its TRACELIGHT_DATABASE_URL says, else its data dir's tracelight.db. */
export const openStorage = async (server: Server): Promise<StoredData> => {
  const url = server.storageEnv['TRACELIGHT_DATABASE_URL'];
  if (url?.startsWith('mongodb')) return openMongo(url);
  return openSqlite(url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : path.join(server.dataDir, 'tracelight.db'));
};

/** `use` with the server's storage open, closed again whatever happens. */
export const withStorage = async <A>(server: Server, use: (stored: StoredData) => Promise<A>): Promise<A> => {
  const stored = await openStorage(server);
  try {
    return await use(stored);
  } finally {
    await stored.close();
  }
};

const openSqlite = (file: string): StoredData => {
  const db = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  const tables = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
  return {
    engine: 'sqlite',
    rowsNaming: async (projectId, runIds) => {
      const counts: Record<string, number> = {};
      for (const table of tables()) {
        const columns = new Set((db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name));
        const conditions = [
          ...(columns.has('project_id') ? ['project_id = @project'] : []),
          ...(columns.has('run_id') ? ['run_id IN (SELECT value FROM json_each(@runs))'] : []),
          ...(table === 'projects' ? ['id = @project'] : []),
          ...(table === 'runs' ? ['id IN (SELECT value FROM json_each(@runs))'] : []),
        ];
        if (conditions.length === 0) continue;
        const n = db.prepare(`SELECT COUNT(*) FROM "${table}" WHERE ${conditions.join(' OR ')}`).pluck().get({ project: projectId, runs: JSON.stringify(runIds) }) as number;
        if (n > 0) counts[table] = n;
      }
      return counts;
    },
    fingerprint: async () => {
      const h = createHash('sha256');
      for (const t of tables()) {
        const select = t === 'api_keys' ? 'SELECT id, user_id, description, key_hash, truncated, created_at, expires_at FROM api_keys' : `SELECT * FROM "${t}"`;
        const rows = (db.prepare(select).raw().all() as unknown[][]).map((row) => JSON.stringify(row)).sort();
        h.update(t).update(rows.join('\n'));
      }
      return h.digest('hex');
    },
    holds: async (text) => {
      // The file and its write-ahead log: a write is in the log until a checkpoint copies it.
      const dir = path.dirname(file);
      const files = fs.readdirSync(dir).filter((f) => f.startsWith(path.basename(file)));
      return files.some((f) => fs.readFileSync(path.join(dir, f)).includes(Buffer.from(text, 'utf8')));
    },
    recordCount: async (runId) => db.prepare('SELECT COUNT(*) FROM log_records WHERE run_id = ?').pluck().get(runId) as number,
    withoutTheirTrace: async (runId) =>
      db
        .prepare("SELECT COUNT(*) FROM log_records s WHERE s.run_id = ? AND s.type != 'trace' AND NOT EXISTS (SELECT 1 FROM log_records t WHERE t.run_id = s.run_id AND t.id = s.trace_id)")
        .pluck()
        .get(runId) as number,
    passwordHashOf: async (email) => db.prepare('SELECT password_hash FROM users WHERE email = ?').pluck().get(email) as string | undefined,
    close: async () => void db.close(),
  };
};

const openMongo = async (url: string): Promise<StoredData> => {
  const client = new mongodb.MongoClient(url, { serverSelectionTimeoutMS: 10_000 });
  await client.connect();
  const db = client.db();
  const collections = async () =>
    (await db.listCollections({}, { nameOnly: true }).toArray())
      .map((c) => c.name)
      .filter((name) => !name.startsWith('system.'))
      .sort();
  const records = db.collection<{ runId: string; type: string; recordId: string; traceId: string | null }>('log_records');
  return {
    engine: 'mongodb',
    rowsNaming: async (projectId, runIds) => {
      const counts: Record<string, number> = {};
      // A document names them by its projectId or runId, or is theirs (a project's, a run's, or one keyed by its run).
      const naming = { $or: [{ _id: { $in: [projectId, ...runIds] } }, { projectId }, { runId: { $in: [...runIds] } }] };
      for (const name of await collections()) {
        const n = await db.collection(name).countDocuments(naming as never);
        if (n > 0) counts[name] = n;
      }
      return counts;
    },
    fingerprint: async () => {
      const h = createHash('sha256');
      for (const name of await collections()) {
        const documents = await db.collection(name).find({}, name === 'api_keys' ? { projection: { lastUsedAt: 0 } } : {}).toArray();
        const rows = documents.map((d) => mongodb.BSON.EJSON.stringify(d, { relaxed: false })).sort();
        h.update(name).update(rows.join('\n'));
      }
      return h.digest('hex');
    },
    holds: async (text) => {
      const wanted = Buffer.from(text, 'utf8');
      for (const name of await collections()) {
        for await (const raw of db.collection(name).find({}, { raw: true })) if (Buffer.from(raw as unknown as Uint8Array).includes(wanted)) return true;
      }
      return false;
    },
    recordCount: (runId) => records.countDocuments({ runId }),
    withoutTheirTrace: async (runId) => {
      const traces = new Set((await records.find({ runId, type: 'trace' }, { projection: { recordId: 1 } }).toArray()).map((t) => t.recordId));
      const others = await records.find({ runId, type: { $ne: 'trace' } }, { projection: { traceId: 1 } }).toArray();
      return others.filter((r) => r.traceId === null || !traces.has(r.traceId)).length;
    },
    passwordHashOf: async (email) => (await db.collection<{ email: string; passwordHash: string }>('users').findOne({ email }))?.passwordHash,
    close: () => client.close(),
  };
};
