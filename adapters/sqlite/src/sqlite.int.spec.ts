// The SQLite adapter on a real database file: the shared contract, then what is SQLite's own.
import { describeRepositoryContract, right, left, aUser, aScorer, anLlmVersion, aProject, aRun, aRecord, expectRekeyed, storeAFullProject, storeV7World } from '@tracelight/testkit';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expectSessionClashKept, storeSessionClash } from '@tracelight/testkit';
import { execFileSync, spawn } from 'node:child_process';
import * as readline from 'node:readline';
import { NoRoomToStart, type RecordQuery } from '@tracelight/ports';
import { createInWalMode, SqliteDatabase, WAL_SIZE_LIMIT_BYTES } from './shared/sqlite-database';
import { MIGRATIONS } from './shared/migrations';
import { SQLITE_REPOSITORIES, SQLITE_WRITES, sqliteRepositories } from './sqlite.module';
import { SqliteStorage } from './shared/sqlite-storage';
import type { LogRecord } from '@tracelight/domain';
import { RECORD_COLUMNS, recordToValues } from './tracing/log-record.mapper';
import { SqliteUserRepository } from './identity/sqlite-user.repository';
import { SqliteScorerRepository } from './scorers/sqlite-scorer.repository';

/** A record's row values of these columns alone (a schema of before some were added). */
const valuesIn = (r: LogRecord, columns: ReadonlyArray<string>) => {
  const values = recordToValues(r);
  return columns.map((c) => values[RECORD_COLUMNS.indexOf(c as (typeof RECORD_COLUMNS)[number])]);
};

const tempFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-sqlite-')), 'nested', 'tracelight.db');

/** This adapter's build, for other processes to load (built first where it is missing): its path. */
const builtAdapter = (): string => {
  const built = path.resolve(__dirname, '../dist/index.js');
  if (!fs.existsSync(built)) execFileSync('npx', ['tsc', '-b', path.resolve(__dirname, '..')]);
  return built;
};

let database: SqliteDatabase;
describeRepositoryContract('sqlite', {
  setup: async () => {
    database = new SqliteDatabase({ path: tempFile() });
    return sqliteRepositories(database);
  },
  teardown: async () => database.close(),
});

// The server's mode: reads on a read-only connection here, writes on the writer thread (group commit).
// A write method missing from SQLITE_WRITES would fail here, on the read-only connection.
let storage: SqliteStorage;
describeRepositoryContract('sqlite (writer thread)', {
  setup: async () => {
    storage = new SqliteStorage({ path: tempFile() });
    await storage.open();
    return storage.repositories;
  },
  teardown: () => storage.close(),
});

/** A project with one run of 40,000 records (named `r0` to `r39999`): a search that reads them all takes tens of ms at least. */
const aLargeRun = async (repos: SqliteStorage['repositories']) => {
  const owner = await right(repos.users.insert(aUser()));
  const project = await right(repos.projects.insert(aProject(owner.id)));
  const run = await right(repos.runs.insert(aRun(project)));
  const records = Array.from({ length: 40_000 }, (_, i) => aRecord(run, { name: `r${i}`, input: `question ${i} ${'lorem ipsum '.repeat(20)}` }));
  for (let i = 0; i < records.length; i += 5_000) await right(repos.logRecords.ingest(run.id, records.slice(i, i + 5_000), []));
  return { project, run, records };
};

describe('SqliteStorage with a writer thread', () => {
  let s: SqliteStorage;
  let file: string;
  beforeEach(async () => {
    file = tempFile();
    s = new SqliteStorage({ path: file });
    await s.open();
    // The search threads start behind the writer: these tests are about them, once up.
    await s.warmed();
  });
  afterEach(() => s.close());

  it('serves searches as soon as it is open, on this thread until a search thread is up, then on one', async () => {
    const early = new SqliteStorage({ path: tempFile(), searchThreads: 1 });
    await early.open();
    try {
      const repos = early.repositories;
      const query = { projectId: 'p', runId: 'r', scope: 'traces', filters: [], sort: null, page: { startingToken: 0, limit: 50 }, maxBytes: 1 << 30, maxMs: 60_000 } as unknown as RecordQuery;
      // Asked in the same turn as `open` resolved, before the thread can have said it is up (a message is
      // a later turn): answered here.
      const here = repos.logRecords.search(query);
      expect((await right(here)).items).toEqual([]);
      expect(early.held()['search_statements']!.entries).toBe(1);
      await early.warmed();
      expect((await right(repos.logRecords.search(query))).items).toEqual([]);
      // This thread's statement, and the search thread's own, which it reports with its answer.
      expect(early.held()['search_statements']!.entries).toBe(2);
    } finally {
      await early.close();
    }
  });

  it('closes at once after opening, waiting for the search threads still starting, which then stop', async () => {
    // In a process of its own, which ends by itself only if no thread is left running.
    const script = `
      const { SqliteStorage } = require(${JSON.stringify(builtAdapter())});
      const storage = new SqliteStorage({ path: process.argv[1], searchThreads: 2 });
      storage.open().then(() => storage.close()).then(() => console.log('closed'));`;
    const child = spawn(process.execPath, ['-e', script, tempFile()], { stdio: ['ignore', 'pipe', 'inherit'] });
    let said = '';
    child.stdout.on('data', (d: Buffer) => (said += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Generous: the process needs its threads to have started and stopped (seconds on a loaded machine).
    const hung = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exited;
    clearTimeout(hung);
    expect({ code, said }).toEqual({ code: 0, said: 'closed\n' });
  });

  it('runs a record search on a search thread: this thread goes on while it reads, and sees its page after', async () => {
    const repos = s.repositories;
    const { project, run } = await aLargeRun(repos);
    // Matching nothing, and too short for the record index (two characters, no trigram): the search reads
    // every record of the run.
    const search = repos.logRecords.search({
      projectId: project.id,
      runId: run.id,
      scope: 'traces',
      filters: [{ type: 'text', columnId: 'input', operator: 'contains', value: 'zq', caseSensitive: false }],
      sort: null,
      page: { startingToken: 0, limit: 50 },
      maxBytes: 1 << 30,
      maxMs: 60_000,
    })();
    let answered = false;
    void search.then(() => (answered = true));
    // On this thread, the search would have read them all before returning: a timer could only fire after.
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(answered).toBe(false);
    expect((await right(() => search)).items).toEqual([]);
    // …and it is the search thread's statement cache that now holds the statement.
    expect(s.held()['search_statements']!.entries).toBe(1);
  });

  it('counts the time a search waits behind another on its search thread against its budget', async () => {
    const one = new SqliteStorage({ path: tempFile(), searchThreads: 1 });
    await one.open();
    await one.warmed();
    try {
      const repos = one.repositories;
      const { project, run, records } = await aLargeRun(repos);
      const query = (filters: RecordQuery['filters'], maxMs: number): RecordQuery => ({
        projectId: project.id,
        runId: run.id,
        scope: 'traces',
        filters,
        sort: null,
        page: { startingToken: 0, limit: 50 },
        maxBytes: 1 << 30,
        maxMs,
      });
      const byId = [{ type: 'id', columnId: 'id', operator: 'eq', value: records[7]!.id }] as const;
      // A search that reads all 40,000 records (tens of ms at least: two characters are too short for the
      // record index), then, behind it on the one thread, one that reads a single record but may take 20 ms
      // in all: it waited longer than that.
      const slow = repos.logRecords.search(query([{ type: 'text', columnId: 'input', operator: 'contains', value: 'zq', caseSensitive: false }], 60_000))();
      const queued = repos.logRecords.search(query(byId, 20))();
      expect((await right(() => slow)).items).toEqual([]);
      expect(await left(() => queued)).toMatchObject({ _tag: 'TimedOut' });
      // Alone, the same search reads its one record and is answered.
      expect((await right(repos.logRecords.search(query(byId, 5_000)))).items.map((r) => r.name)).toEqual(['r7']);
    } finally {
      await one.close();
    }
  });

  it('names only real repository methods as writes', () => {
    for (const [name, methods] of Object.entries(SQLITE_WRITES))
      for (const m of methods) expect([name, m, typeof SQLITE_REPOSITORIES[name as keyof typeof SQLITE_WRITES].prototype[m]]).toEqual([name, m, 'function']);
  });

  it('commits concurrent writes together, each acknowledged only once durable, a failing one undone alone', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    const taken = aProject(owner.id, { name: 'taken' });
    await right(repos.projects.insert(taken));
    // 200 writes in one turn of the event loop: they share transactions; the duplicate name fails alone.
    const projects = Array.from({ length: 200 }, (_, i) => aProject(owner.id, { name: i === 100 ? 'taken' : `p${i}` }));
    const results = await Promise.all(projects.map((p) => repos.projects.insert(p)()));
    expect(results.filter((r) => r._tag === 'Left').map((r) => r._tag === 'Left' && r.left._tag)).toEqual(['Conflict']);
    const listed = await right(repos.projects.listByOwner(owner.id, {}));
    expect(listed).toHaveLength(200);
    // Another connection (another process) sees every acknowledged write.
    const other = new SqliteDatabase({ path: file });
    expect(other.db.prepare('SELECT COUNT(*) FROM projects').pluck().get()).toBe(200);
    other.close();
  });

  it('keeps reads answering while a large ingest is being written', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    const run = await right(repos.runs.insert(aRun(project)));
    const records = Array.from({ length: 20_000 }, () => aRecord(run, { input: 'x'.repeat(500) }));
    const order: string[] = [];
    const ingest = repos.logRecords.ingest(run.id, records, ['input'])().then((r) => {
      order.push(`ingest ${r._tag}`);
    });
    // Issued after the ingest: on the writer thread the ingest cannot hold this read up.
    const read = repos.projects.findById(project.id)().then((r) => {
      order.push(`read ${r._tag}`);
    });
    await Promise.all([ingest, read]);
    expect(order).toEqual(['read Right', 'ingest Right']);
    expect(await right(repos.logRecords.presentColumns(run.id))).toEqual(new Set(['input']));
  });

  it('answers the writes in flight Unavailable if the writer thread dies, is not ready meanwhile, and starts it again', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    // Reaching into the storage on purpose: nothing in its interface kills its thread.
    const worker = (s as unknown as { opened: { writer: { worker: { terminate(): Promise<number> } } } }).opened.writer.worker;
    const inFlight = repos.projects.insert(aProject(owner.id, { name: 'lost-with-the-thread' }))();
    await worker.terminate();
    const lost = await inFlight;
    expect(lost._tag === 'Left' && lost.left._tag).toBe('Unavailable');
    expect((await s.ping()())._tag).toBe('Left');
    for (let i = 0; i < 500 && (await s.ping()())._tag === 'Left'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await s.ping()())._tag).toBe('Right');
    expect(await right(repos.projects.insert(aProject(owner.id, { name: 'after-the-restart' })))).toMatchObject({ name: 'after-the-restart' });
  });

  it('answers each of many writes in flight together with its own outcome, before and after the writer thread is started again (call ids are given out again)', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    const insertMany = (prefix: string) =>
      Promise.all(Array.from({ length: 60 }, (_, i) => repos.projects.insert(aProject(owner.id, { name: `${prefix}-${i}` }))()));
    const names = (outcomes: ReadonlyArray<{ _tag: 'Left' } | { _tag: 'Right'; right: { name: string } }>) => outcomes.map((o) => (o._tag === 'Right' ? o.right.name : o._tag));
    expect(names(await insertMany('before'))).toEqual(Array.from({ length: 60 }, (_, i) => `before-${i}`));
    const worker = (s as unknown as { opened: { writer: { worker: { terminate(): Promise<number> } } } }).opened.writer.worker;
    // Asked as the thread is ended: its outcome is unknown (it may or may not have been committed first).
    const unknown = repos.projects.insert(aProject(owner.id, { name: 'outcome-unknown' }))();
    await worker.terminate();
    const lost = await unknown;
    expect(lost._tag === 'Left' && lost.left._tag).toBe('Unavailable');
    for (let i = 0; i < 500 && (await s.ping()())._tag === 'Left'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(names(await insertMany('after'))).toEqual(Array.from({ length: 60 }, (_, i) => `after-${i}`));
    // Every write answered Right is stored once, none twice, none under another's answer.
    const stored = (await right(repos.projects.listByOwner(owner.id, {}))).map((p) => p.name).filter((n) => n !== 'outcome-unknown');
    expect(stored.sort()).toEqual([...Array.from({ length: 60 }, (_, i) => `before-${i}`), ...Array.from({ length: 60 }, (_, i) => `after-${i}`)].sort());
  });

  it('keeps trying to start the writer thread again while it cannot, saying why, and writes once it can', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    const worker = (s as unknown as { opened: { writer: { worker: { terminate(): Promise<number> } } } }).opened.writer.worker;
    // The database file gone from its path (a directory there instead): a new writer thread cannot open it.
    fs.renameSync(file, `${file}.away`);
    fs.mkdirSync(file);
    await worker.terminate();
    await new Promise((r) => setTimeout(r, 1_000));
    const notReady = await s.ping()();
    expect(notReady._tag === 'Left' && 'message' in notReady.left && notReady.left.message).toMatch(/^the storage writer cannot start again \(.+\); still trying$/);
    const refused = await repos.projects.insert(aProject(owner.id))();
    expect(refused._tag === 'Left' && refused.left._tag).toBe('Unavailable');
    // The file back: a later attempt opens it, and the writes go on.
    fs.rmdirSync(file);
    fs.renameSync(`${file}.away`, file);
    for (let i = 0; i < 1_000 && (await s.ping()())._tag === 'Left'; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await s.ping()())._tag).toBe('Right');
    expect(await right(repos.projects.insert(aProject(owner.id, { name: 'after-the-file-came-back' })))).toMatchObject({ name: 'after-the-file-came-back' });
  });

  it('refuses writes and is not ready once its database file is removed from its path, rather than write into a file lost at the next start', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
    // Looked at once a second.
    await new Promise((r) => setTimeout(r, 1_100));
    const notReady = await s.ping()();
    expect(notReady._tag === 'Left' && 'message' in notReady.left && notReady.left.message).toMatch(/^the database file .+ was removed or replaced while this process had it open/);
    const refused = await repos.projects.insert(aProject(owner.id))();
    expect(refused._tag === 'Left' && refused.left._tag).toBe('Unavailable');
  });

  it('finishes queued writes before closing', async () => {
    const repos = s.repositories;
    const owner = await right(repos.users.insert(aUser()));
    const pending = Array.from({ length: 50 }, (_, i) => repos.projects.insert(aProject(owner.id, { name: `late-${i}` }))());
    await s.close();
    expect((await Promise.all(pending)).every((r) => r._tag === 'Right')).toBe(true);
    const reopened = new SqliteDatabase({ path: file });
    expect(reopened.db.prepare('SELECT COUNT(*) FROM projects').pluck().get()).toBe(50);
    reopened.close();
  });
});

describe('SqliteDatabase', () => {
  it('runs in WAL mode with the requested durability, and records each migration once', () => {
    const file = tempFile();
    const db = new SqliteDatabase({ path: file, synchronous: 'NORMAL' });
    expect(db.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
    const again = new SqliteDatabase({ path: file });
    expect(again.db.pragma('synchronous', { simple: true })).toBe(2);
    const applied = again.db.prepare('SELECT version FROM schema_migrations').pluck().all();
    expect(applied).toEqual(MIGRATIONS.map((m) => m.version));
    again.close();
  });

  it('checkpoints once the write-ahead log holds WAL_SIZE_LIMIT_BYTES, not after SQLite\'s 1,000 pages: many commits\' pages are copied once', () => {
    const file = tempFile();
    const db = new SqliteDatabase({ path: file }, [{ version: 1, name: 'blobs', up: 'CREATE TABLE blobs (b BLOB)' }]);
    const insert = db.db.prepare('INSERT INTO blobs (b) VALUES (?)');
    // 24 MiB in 96 commits: past SQLite's default (4 MiB), the log would have been checkpointed and
    // started over from its beginning again and again, staying near 4 MiB.
    const quarter = Buffer.alloc(1 << 18, 7);
    for (let i = 0; i < 96; i++) insert.run(quarter);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(20 * (1 << 20));
    // Past the bound, a commit checkpoints, and the log starts over (trimmed to the bound).
    for (let i = 0; i < 4 * 64; i++) insert.run(quarter);
    expect(fs.statSync(`${file}-wal`).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES + (1 << 20));
    db.close();
  });

  it('gives the write-ahead log back to the disk after a large write: once checkpointed, it shrinks to at most WAL_SIZE_LIMIT_BYTES', () => {
    const file = tempFile();
    const db = new SqliteDatabase({ path: file }, [{ version: 1, name: 'blobs', up: 'CREATE TABLE blobs (b BLOB)' }]);
    const insert = db.db.prepare('INSERT INTO blobs (b) VALUES (?)');
    const mib = Buffer.alloc(1 << 20, 7);
    db.db.transaction(() => {
      for (let i = 0; i < 80; i++) insert.run(mib);
    })();
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(80 * (1 << 20));
    db.db.pragma('wal_checkpoint(PASSIVE)');
    insert.run(Buffer.alloc(10)); // the next write starts the log over, and trims it
    expect(fs.statSync(`${file}-wal`).size).toBeLessThanOrEqual(WAL_SIZE_LIMIT_BYTES);
    db.close();
  });

  it('upgrades a database of schema 3 (record ids unique across runs) keeping every record, then keys records by run', async () => {
    const file = tempFile();
    // Rows written as schema 3 stored them: today's repositories are prepared for today's schema.
    const old = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version <= 3));
    const owner = aUser();
    const project = aProject(owner.id);
    const [run, other] = [aRun(project), aRun(project)];
    old.db.prepare('INSERT INTO users VALUES (?, ?, ?, ?, ?, ?)').run(owner.id, owner.email, 'user', 'h', 0, 0);
    old.db.prepare('INSERT INTO projects VALUES (?, ?, ?, ?, ?, ?)').run(project.id, project.name, 'gen_ai', owner.id, 0, 0);
    for (const r of [run, other]) old.db.prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)').run(r.id, project.id, r.name, 'log_stream', owner.id, 0, 0);
    const parent = aRecord(run, { name: 'parent', hasChildren: true });
    const records = [parent, aRecord(run, { type: 'llm', traceId: parent.id, parentId: parent.id }), aRecord(run, { name: 'lone' })];
    // Schema 3's columns: today's but the ones added since.
    const columns = RECORD_COLUMNS.filter((c) => c !== 'otel_root_key' && c !== 'created_at_us' && c !== 'metric_info' && c !== 'input_z' && c !== 'output_z');
    const insert = old.db.prepare(`INSERT INTO log_records (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const valuesOf = (r: LogRecord) => valuesIn(r, columns);
    for (const r of records) insert.run(valuesOf(r));
    // Under schema 3 the id was taken for every run.
    expect(() => insert.run(valuesOf({ ...records[2]!, runId: other.id }))).toThrow(/UNIQUE constraint failed: log_records.id/);
    old.close();

    const upgraded = new SqliteDatabase({ path: file });
    const now = sqliteRepositories(upgraded);
    const all = (runId: string, scope: 'traces' | 'spans') =>
      now.logRecords.search({ projectId: project.id, runId: runId as never, scope, filters: [], sort: { columnId: 'name', ascending: true }, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 20, maxMs: 60_000 });
    expect((await right(all(run.id, 'traces'))).items).toEqual([records[2]!, parent].sort((a, b) => (a.name < b.name ? -1 : 1)));
    expect((await right(all(run.id, 'spans'))).items).toEqual([records[1]]);
    await right(now.logRecords.ingest(other.id, [{ ...records[2]!, runId: other.id, name: 'namesake' }], []));
    expect((await right(all(other.id, 'traces'))).items.map((r) => r.name)).toEqual(['namesake']);
    expect(upgraded.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'log_records' ORDER BY name").pluck().all()).toEqual([
      'log_records_by_parent',
      'log_records_by_run_time',
      'log_records_by_session',
      'log_records_by_trace',
      'log_records_incomplete',
      'log_records_sessions_by_external_id',
      'sqlite_autoindex_log_records_1',
    ]);
    expect(upgraded.db.pragma('integrity_check', { simple: true })).toBe('ok');
    upgraded.close();
  });

  it('upgrades a database of schema 6 (no OTLP root key) reading its records as they were; a trace record of it is replaced by the next root span sent, which then keeps it', async () => {
    const file = tempFile();
    const old = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version <= 6));
    const owner = aUser();
    const project = aProject(owner.id);
    const run = aRun(project);
    // Rows as schema 6 stored them: today's repositories are prepared for today's schema.
    old.db.prepare('INSERT INTO users (id, email, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(owner.id, owner.email, 'user', 'h', 0, 0);
    old.db.prepare('INSERT INTO projects (id, name, type, created_by, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(project.id, project.name, 'gen_ai', owner.id, 0, 0);
    old.db.prepare('INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?)').run(run.id, project.id, run.name, 'log_stream', owner.id, 0, 0);
    const trace = aRecord(run, { name: 'root stored before', hasChildren: true });
    const span = aRecord(run, { type: 'workflow', traceId: trace.id, parentId: trace.id });
    const columns = RECORD_COLUMNS.filter((c) => c !== 'otel_root_key' && c !== 'created_at_us' && c !== 'metric_info' && c !== 'input_z' && c !== 'output_z');
    const insert = old.db.prepare(`INSERT INTO log_records (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    for (const r of [trace, span]) insert.run(valuesIn(r, columns));
    old.close();

    const upgraded = new SqliteDatabase({ path: file });
    const now = sqliteRepositories(upgraded);
    const all = async (scope: 'traces' | 'spans') =>
      (await right(now.logRecords.search({ projectId: project.id, runId: run.id, scope, filters: [], sort: null, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 20, maxMs: 60_000 }))).items;
    expect([await all('traces'), await all('spans')]).toEqual([[trace], [span]]);
    const next = { ...trace, name: 'next root', otelRootKey: '01800000000000000000/2222222222222222' };
    await right(now.logRecords.ingest(run.id, [next], []));
    expect(await all('traces')).toEqual([next]);
    await right(now.logRecords.ingest(run.id, [{ ...next, name: 'a later root', otelRootKey: '01900000000000000000/3333333333333333' }], []));
    expect(await all('traces')).toEqual([next]);
    upgraded.close();
  });

  it('maps records to the log_records columns in table order', () => {
    const db = new SqliteDatabase({ path: tempFile() });
    const columns = db.db.prepare("SELECT name FROM pragma_table_info('log_records')").pluck().all();
    expect([...RECORD_COLUMNS].sort()).toEqual([...columns].sort());
    db.close();
  });

  it('creates its files readable by the owner only', () => {
    const file = tempFile();
    const db = new SqliteDatabase({ path: file });
    db.db.prepare('INSERT INTO users (id, email, role, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run('u', 'u@example.com', 'user', 'h', 0, 0);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, fs.statSync(f).mode & 0o777]).toEqual([f, 0o600]);
    db.close();
  });

  it('makes a new file WAL from the moment it is at its path, 0600, with nothing left beside it', () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    expect(createInWalMode(file)).toBe(true);
    const header = fs.readFileSync(file);
    // Bytes 18 and 19 of the header: the file format's write and read versions, 2 for WAL.
    expect([header.length, header[18], header[19], fs.statSync(file).mode & 0o777]).toEqual([4096, 2, 2, 0o600]);
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('leaves a file another process made first as it is, and nothing beside it', () => {
    const file = tempFile();
    new SqliteDatabase({ path: file }).close();
    const before = fs.readFileSync(file);
    expect(createInWalMode(file)).toBe(false);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.readdirSync(path.dirname(file))).toEqual([path.basename(file)]);
  });

  it('makes an empty file where the file system has no hard links, which opening turns to WAL', () => {
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const noLink = () => {
      throw Object.assign(new Error('EPERM: operation not permitted, link'), { code: 'EPERM' });
    };
    expect(createInWalMode(file, noLink)).toBe(true);
    expect([fs.statSync(file).size, fs.statSync(file).mode & 0o777, fs.readdirSync(path.dirname(file))]).toEqual([0, 0o600, [path.basename(file)]]);
    const opened = new SqliteDatabase({ path: file });
    expect(opened.db.pragma('journal_mode', { simple: true })).toBe('wal');
    opened.close();
  });

  /** Node processes that each open `SqliteDatabase` on every path written to their stdin, answering a line each. */
  const openers = (count: number) => {
    const built = builtAdapter();
    const script = `
      const { SqliteDatabase } = require(${JSON.stringify(built)});
      require('readline').createInterface({ input: process.stdin }).on('line', (file) => {
        try {
          const db = new SqliteDatabase({ path: file });
          const mode = db.db.pragma('journal_mode', { simple: true });
          db.close();
          console.log('opened ' + mode);
        } catch (e) { console.log('failed: ' + e.code + ' ' + e.message); }
      });`;
    return Array.from({ length: count }, () => {
      const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
      const lines = readline.createInterface({ input: child.stdout! });
      return {
        open: (file: string) => new Promise<string>((resolve) => { lines.once('line', resolve); child.stdin!.write(`${file}\n`); }),
        stop: () => child.kill(),
      };
    });
  };

  it('opens in every one of several processes starting together on a new file (none fails with "database is locked")', async () => {
    // Each turned the file it made or found to WAL: a read turned into a write, which SQLite refuses at
    // once while another process writes, so one in a few dozen opens failed. Now no process sees the
    // file in any mode but WAL.
    const processes = openers(4);
    try {
      for (let round = 0; round < 20; round++) {
        const file = tempFile();
        const answers = await Promise.all(processes.map((p) => p.open(file)));
        expect([round, answers]).toEqual([round, answers.map(() => 'opened wal')]);
        expect(fs.readdirSync(path.dirname(file)).filter((f) => !/^tracelight\.db(-wal|-shm)?$/.test(f))).toEqual([]);
      }
    } finally {
      for (const p of processes) p.stop();
    }
  });

  it('turns a rollback-journal file (a backup put back) to WAL while another process writes it, rather than fail with "database is locked"', async () => {
    // Another process holds the write lock of a rollback-journal file for 300 ms, as a replica starting
    // at the same moment on a restored backup does while it turns the file to WAL: opening must wait.
    const file = tempFile();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const child = spawn(process.execPath, ['-e', `
      const db = new (require(process.argv[1]))(process.argv[2]);
      db.exec('CREATE TABLE t (x); BEGIN IMMEDIATE; INSERT INTO t VALUES (1)');
      process.stdout.write('locked\\n');
      setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);
    `, require.resolve('better-sqlite3'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
    const opened = new SqliteDatabase({ path: file });
    expect(opened.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(opened.db.prepare('SELECT x FROM t').all()).toEqual([{ x: 1 }]);
    opened.close();
    expect(await exited).toBe(0);
  });

  it('keeps data across reopening', async () => {
    const file = tempFile();
    const first = new SqliteDatabase({ path: file });
    const u = aUser();
    await right(sqliteRepositories(first).users.insert(u));
    first.close();
    const second = new SqliteDatabase({ path: file });
    expect(await right(sqliteRepositories(second).users.findByEmail(u.email))).toEqual({ _tag: 'Some', value: u });
    second.close();
  });

  it('migration 9: a scorer an earlier build stored with a null bucket (sent as 1e400) is read again, without its threshold; others keep theirs', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file }, MIGRATIONS.filter((m) => m.version < 9));
    // The two repositories this needs: others prepare statements on tables later migrations add.
    const old = { users: new SQLITE_REPOSITORIES.users(before), scorers: new SQLITE_REPOSITORIES.scorers(before) };
    const u = await right(old.users.insert(aUser()));
    const threshold = (buckets: number[]) => ({ buckets, displayValueLevels: ['low', 'mid', 'high'], inverted: false });
    const broken = await right(old.scorers.insert({ ...aScorer(u.id), display: { label: 'Broken', threshold: threshold([0.2, Infinity]) } }));
    const sound = await right(old.scorers.insert({ ...aScorer(u.id), display: { label: 'Sound', threshold: threshold([0.2, 0.8]) } }));
    // What that build then answered for every read of the owner's scorers.
    expect((await left(old.scorers.listByOwner(u.id)))._tag).toBe('Unavailable');
    before.close();
    const after = new SqliteDatabase({ path: file });
    const repos = sqliteRepositories(after);
    const found = await right(repos.scorers.listByOwner(u.id));
    expect(new Map(found.map((s) => [s.id, s.display]))).toEqual(new Map<string, unknown>([[broken.id, { label: 'Broken' }], [sound.id, { label: 'Sound', threshold: threshold([0.2, 0.8]) }]]));
    after.close();
  });

  it('migration 10: a database holding the version-7 ids of earlier builds has every id the server made re-keyed to version 4, every reference with it; client ids stay', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file });
    const world = await storeV7World(sqliteRepositories(before));
    // The database as an earlier build left it: its data, and migration 10 not applied yet.
    before.db.prepare('DELETE FROM schema_migrations WHERE version = 10').run();
    before.close();
    const after = new SqliteDatabase({ path: file });
    await expectRekeyed(sqliteRepositories(after), world);
    expect(after.db.pragma('foreign_key_check')).toEqual([]);
    expect(after.db.pragma('integrity_check', { simple: true })).toBe('ok');
    after.close();
  });

  it('migration 10: a session whose version-4 form is the id a client chose for a record of its run keeps its id (the start does not fail); the rest is re-keyed', async () => {
    const file = tempFile();
    const before = new SqliteDatabase({ path: file });
    const world = await storeV7World(sqliteRepositories(before));
    const clash = await storeSessionClash(sqliteRepositories(before), world);
    before.db.prepare('DELETE FROM schema_migrations WHERE version = 10').run();
    before.close();
    const after = new SqliteDatabase({ path: file });
    await expectSessionClashKept(sqliteRepositories(after), world, clash);
    expect(after.db.pragma('foreign_key_check')).toEqual([]);
    after.close();
  });

  it('a migration that fails is named in the error, and nothing of it is applied', () => {
    const file = tempFile();
    const failing = { version: MIGRATIONS.length + 100, name: 'a step that fails', up: 'CREATE TABLE half_made (x INTEGER); SELECT * FROM no_such_table;' };
    expect(() => new SqliteDatabase({ path: file }, [...MIGRATIONS, failing])).toThrow(
      `migration ${failing.version} (a step that fails) failed, nothing of it was applied: no such table: no_such_table`,
    );
    const reopened = new SqliteDatabase({ path: file });
    expect(reopened.db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'half_made'").pluck().get()).toBe(0);
    reopened.close();
  });

  it('refuses to open a database newer than the code', () => {
    const file = tempFile();
    new SqliteDatabase({ path: file }).close();
    const raw = new SqliteDatabase({ path: file });
    raw.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, ?, ?)').run('future', Date.now());
    raw.close();
    expect(() => new SqliteDatabase({ path: file })).toThrow(/newer than this build/);
  });

  it('answers a corrupt row with a Left, not a throw', async () => {
    const db = new SqliteDatabase({ path: tempFile() });
    const repos = sqliteRepositories(db);
    const u = await right(repos.users.insert(aUser()));
    db.db.prepare("UPDATE users SET role = 'emperor' WHERE id = ?").run(u.id);
    const error = await left(repos.users.findById(u.id));
    expect(error._tag).toBe('Unavailable');
    db.close();
  });

  it('allocates scorer versions without gaps or duplicates across processes sharing the file', async () => {
    const file = tempFile();
    const db = new SqliteDatabase({ path: file });
    const repos = sqliteRepositories(db);
    const owner = await right(repos.users.insert(aUser()));
    const scorer = await right(repos.scorers.insert(aScorer(owner.id)));
    const version = JSON.stringify(anLlmVersion(scorer, 0));
    const built = builtAdapter();
    // Two real processes, each appending 50 versions: one writing inline, one through its writer thread
    // (which numbers each version as it stores it, under the write lock both processes take).
    const worker = `
      const { SqliteStorage } = require(${JSON.stringify(built)});
      const storage = new SqliteStorage({ path: process.argv[1], writer: process.argv[3] });
      const base = JSON.parse(process.argv[2]);
      (async () => {
        await storage.open();
        const repo = storage.repositories.scorerVersions;
        for (let i = 0; i < 50; i++) {
          const r = await repo.appendNext(base.scorerId, (n) => ({ ...base, id: require('crypto').randomUUID(), version: n,
            createdAt: new Date(base.createdAt), updatedAt: new Date(base.updatedAt),
            generatedScorer: { ...base.generatedScorer, createdAt: new Date(base.createdAt), updatedAt: new Date(base.updatedAt) } }))();
          if (r._tag !== 'Right') { console.error(JSON.stringify(r.left)); process.exit(1); }
        }
        await storage.close();
      })();`;
    const runOne = (mode: 'inline' | 'thread') =>
      new Promise<number>((resolve) => spawn(process.execPath, ['-e', worker, file, version, mode], { stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1)));
    expect(await Promise.all([runOne('inline'), runOne('thread')])).toEqual([0, 0]);
    const numbers = db.db.prepare('SELECT version FROM scorer_versions WHERE scorer_id = ? ORDER BY version').pluck().all(scorer.id);
    expect(numbers).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    db.close();
  });
});

describe('deleting a project', () => {
  it('retires and purges while another process writes, waiting for its write lock rather than failing at once (database is locked)', async () => {
    const file = tempFile();
    const db = new SqliteDatabase({ path: file });
    const repos = sqliteRepositories(db);
    const owner = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    const run = await right(repos.runs.insert(aRun(project)));
    await right(repos.logRecords.ingest(run.id, Array.from({ length: 3 }, () => aRecord(run)), []));
    db.db.exec('CREATE TABLE other_writer (x)');
    // Another process (the server, when this is the admin CLI) takes the write lock, holds it a while, and
    // commits a change: a transaction of this one that had read before that commit could not write after it.
    const otherWriter = async () => {
      const child = spawn(process.execPath, ['-e', `
        const db = new (require(${JSON.stringify(require.resolve('better-sqlite3'))}))(process.argv[1]);
        db.exec('BEGIN IMMEDIATE; INSERT INTO other_writer VALUES (1)');
        process.stdout.write('locked\\n');
        setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);`, file], { stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // Wrapped: an async function's returned promise would be awaited through, to the child's exit.
      return { exited: new Promise<number | null>((resolve) => child.on('exit', resolve)) };
    };
    let { exited } = await otherWriter();
    expect(await right(repos.projects.retire(owner.id, project.id, new Date()))).toMatchObject({ id: project.id });
    expect(await exited).toBe(0);
    ({ exited } = await otherWriter());
    expect(await right(repos.projects.purgeStep(project.id, 2))).toEqual({ runs: 0, records: 2, finished: false });
    expect(await exited).toBe(0);
    ({ exited } = await otherWriter());
    expect(await right(repos.projects.purgeStep(project.id, 2))).toEqual({ runs: 1, records: 1, finished: true });
    expect(await exited).toBe(0);
    db.close();
  });

  it('leaves no row of the project or its runs in any table that names one; its records go in steps, the rest in one transaction', async () => {
    const db = new SqliteDatabase({ path: tempFile() });
    const repos = sqliteRepositories(db);
    const owner = await right(repos.users.insert(aUser()));
    const { project, runs, scorer } = await storeAFullProject(repos, owner.id);
    // Every table with a column naming a project or a run, found in the schema itself: a table that a
    // later migration adds with such a column shows up here, to be removed with its project too.
    const tables = db.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    const naming = (table: string) => {
      const columns = new Set((db.db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>).map((c) => c.name));
      if (table === 'projects') return 'id = @project';
      if (table === 'runs') return 'project_id = @project OR id IN (SELECT value FROM json_each(@runs))';
      const conditions = [...(columns.has('project_id') ? ['project_id = @project'] : []), ...(columns.has('run_id') ? ['run_id IN (SELECT value FROM json_each(@runs))'] : [])];
      return conditions.length > 0 ? conditions.join(' OR ') : undefined;
    };
    const rowsOf = () =>
      Object.fromEntries(
        tables.flatMap((t) => {
          const where = naming(t);
          return where === undefined ? [] : [[t, db.db.prepare(`SELECT COUNT(*) FROM "${t}" WHERE ${where}`).pluck().get({ project: project.id, runs: JSON.stringify(runs.map((r) => r.id)) })]];
        }),
      );
    expect(rowsOf()).toEqual({ log_records: 9, projects: 1, run_columns: 6, run_insights: 3, run_scorer_settings: 3, runs: 3, scoring_jobs: 3 });

    // Retired: every row is there until the purge (the project's reads alone are gone).
    await right(repos.projects.retire(owner.id, project.id, new Date()));
    expect(rowsOf()).toEqual({ log_records: 9, projects: 1, run_columns: 6, run_insights: 3, run_scorer_settings: 3, runs: 3, scoring_jobs: 3 });
    expect(await right(repos.projects.purgeStep(project.id, 5))).toEqual({ runs: 0, records: 5, finished: false });
    expect(rowsOf()).toEqual({ log_records: 4, projects: 1, run_columns: 6, run_insights: 3, run_scorer_settings: 3, runs: 3, scoring_jobs: 0 });

    // A statement that fails in the last step undoes that step whole (here the last statement, removing
    // the project row): the records removed in the steps before it stay removed; the rest is all there.
    db.db.exec(`CREATE TEMP TRIGGER refuse BEFORE DELETE ON projects BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    expect((await left(repos.projects.purgeStep(project.id, 5)))._tag).toBe('Unavailable');
    expect(rowsOf()).toEqual({ log_records: 4, projects: 1, run_columns: 6, run_insights: 3, run_scorer_settings: 3, runs: 3, scoring_jobs: 0 });
    expect(await right(repos.projects.retired(10))).toEqual([project.id]);
    db.db.exec('DROP TRIGGER refuse');

    // The next step finishes it.
    expect(await right(repos.projects.purgeStep(project.id, 5))).toEqual({ runs: 3, records: 4, finished: true });
    expect(rowsOf()).toEqual({ log_records: 0, projects: 0, run_columns: 0, run_insights: 0, run_scorer_settings: 0, runs: 0, scoring_jobs: 0 });
    expect(await right(repos.projects.retired(10))).toEqual([]);
    expect(await right(repos.scorers.findById(scorer.id))).toEqual({ _tag: 'Some', value: scorer });
    db.close();
  });

  it('purges a step at a time, counting every step, and retires none of a project that is not the owner\'s', async () => {
    const db = new SqliteDatabase({ path: tempFile() });
    const repos = sqliteRepositories(db);
    const owner = await right(repos.users.insert(aUser()));
    const stranger = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    const run = await right(repos.runs.insert(aRun(project)));
    // Two and a half steps' worth.
    await right(repos.logRecords.ingest(run.id, Array.from({ length: 2_500 }, () => aRecord(run)), []));
    const records = db.db.prepare('SELECT COUNT(*) FROM log_records WHERE run_id = ?').pluck();
    expect((await left(repos.projects.retire(stranger.id, project.id, new Date())))._tag).toBe('NotFound');
    expect(await right(repos.projects.retired(10))).toEqual([]);
    await right(repos.projects.retire(owner.id, project.id, new Date()));
    expect(await right(repos.projects.purgeStep(project.id, 1_000))).toEqual({ runs: 0, records: 1_000, finished: false });
    expect(records.get(run.id)).toBe(1_500);
    expect(await right(repos.projects.purgeStep(project.id, 1_000))).toEqual({ runs: 0, records: 1_000, finished: false });
    expect(await right(repos.projects.purgeStep(project.id, 1_000))).toEqual({ runs: 1, records: 500, finished: true });
    expect(records.get(run.id)).toBe(0);
    db.close();
  });
});

// A full database (the disk, or TRACELIGHT_SQLITE_MAX_BYTES as here: max_page_count gives SQLITE_FULL
// portably): a write that does not fit is refused as StorageFull, alone, and nothing acknowledged is lost.
describe('a full database', () => {
  const QUOTA = 256 * 1024; // the schema takes about 150 KiB
  // Random text: large texts are stored deflated, and a repeated letter would take a few hundred bytes.
  const huge = (run: ReturnType<typeof aRun>) => [aRecord(run, { input: randomBytes(1 << 20).toString('hex') })];
  const small = (run: ReturnType<typeof aRun>) => [aRecord(run, { input: 'small' })];
  const setUp = async (repos: ReturnType<typeof sqliteRepositories>) => {
    const owner = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    return right(repos.runs.insert(aRun(project)));
  };
  const tags = (results: ReadonlyArray<{ _tag: string; left?: { _tag: string } }>) => results.map((r) => (r._tag === 'Left' ? r.left!._tag : 'Right'));

  it('refuses, through the writer thread, only the write that does not fit; the rest of its batch commits', async () => {
    const file = tempFile();
    const storage = new SqliteStorage({ path: file, maxBytes: QUOTA });
    await storage.open();
    const repos = storage.repositories;
    const run = await setUp(repos);
    const [before, after] = [small(run), small(run)];
    try {
      // One turn of the event loop: the three share a transaction, each in its savepoint. SQLite undoes
      // that whole transaction on the one that does not fit; the other two are written again.
      const results = await Promise.all([before, huge(run), after].map((records) => repos.logRecords.ingest(run.id, records, [])()));
      expect(tags(results)).toEqual(['Right', 'StorageFull', 'Right']);
      expect(results[1]).toEqual({ _tag: 'Left', left: { _tag: 'StorageFull', message: 'SQLITE_FULL: database or disk is full' } });
    } finally {
      await storage.close();
    }
    // Every acknowledged write is there, intact, for another connection with room to spare.
    const reopened = new SqliteDatabase({ path: file });
    expect(reopened.db.prepare('SELECT id FROM log_records ORDER BY id').pluck().all()).toEqual([before[0]!.id, after[0]!.id].sort());
    expect(reopened.db.pragma('integrity_check', { simple: true })).toBe('ok');
    reopened.close();
  });

  it('takes writes again, on the same connection, once there is room: nothing to restart', async () => {
    const db = new SqliteDatabase({ path: tempFile(), maxBytes: QUOTA });
    const repos = sqliteRepositories(db);
    const run = await setUp(repos);
    const records = huge(run);
    expect((await left(repos.logRecords.ingest(run.id, records, [])))._tag).toBe('StorageFull');
    expect(db.db.inTransaction).toBe(false);
    db.db.pragma('max_page_count = 1000000'); // space freed
    await right(repos.logRecords.ingest(run.id, records, []));
    expect(db.db.prepare('SELECT COUNT(*) FROM log_records').pluck().get()).toBe(1);
    db.close();
  });

  it('refuses to start without room for a migration, saying so, and has applied nothing of it', () => {
    const file = tempFile();
    expect(() => new SqliteDatabase({ path: file, maxBytes: 64 * 1024 })).toThrow(
      /^no room to apply migration 1 \(.*\): SQLITE_FULL \(database or disk is full\)\. Nothing of it was applied: free space on its disk \(or raise TRACELIGHT_SQLITE_MAX_BYTES\) and start again$/,
    );
    const db = new SqliteDatabase({ path: file });
    expect(db.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.db.prepare('SELECT version FROM schema_migrations').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
    db.close();
  });

  it('refuses to start as the ports’ NoRoomToStart, the class the apps recognise, inline and across the writer thread', async () => {
    for (const writer of ['inline', 'thread'] as const) {
      const refused = await new SqliteStorage({ path: tempFile(), maxBytes: 64 * 1024, writer }).open().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect([writer, refused instanceof NoRoomToStart, (refused as Error).message]).toEqual([writer, true, expect.stringMatching(/^no room to apply migration 1 /)]);
    }
  });
});
