// The MongoDB adapter against a real server: MONGODB_URI when set, else a mongo:7 container when a
// Docker engine answers, else the suite is skipped with one line saying why.
import { aProject, aRecord, aRun, aUser, describeRepositoryContract, expectRekeyed, expectSessionClashKept, left, purgeRetired, right, storeAFullProject, storeSessionClash, storeV7World } from '@tracelight/testkit';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import { MIGRATIONS, type MongoMigration } from './shared/migrations';
import { MongoDatabase } from './shared/mongo-database';
import { mongoRepositories } from './mongodb.module';
import type { Document } from 'mongodb';
import { LEADING_INDEXES, leadingIndex } from './tracing/mongo-log-record.repository';

const uri = process.env['MONGODB_URI'];
const dockerHost = process.env['DOCKER_HOST'] ?? (fs.existsSync('/var/run/docker.sock') ? 'unix:///var/run/docker.sock' : undefined);
const available = uri !== undefined || dockerHost !== undefined;

if (!available) {
  process.stderr.write('MongoDB suite skipped: MONGODB_URI is not set and no Docker engine answers here (set MONGODB_URI=mongodb://… to run it)\n');
}

/** MONGODB_URI, or a single-node replica set in a container (stopped by `stop`). */
const startServer = async (): Promise<{ url: string; stop: () => Promise<unknown> }> => {
  if (uri !== undefined) return { url: uri, stop: async () => undefined };
  const { GenericContainer, Wait } = await import('testcontainers');
  const container = await new GenericContainer('mongo:7.0.14')
    .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .start();
  // Until the node has been elected: before that, the first write (a migration's) is refused as NotWritablePrimary.
  await container.exec([
    'mongosh',
    '--quiet',
    '--eval',
    'rs.initiate({_id:"rs0",members:[{_id:0,host:"localhost:27017"}]}); while (!db.hello().isWritablePrimary) sleep(100)',
  ]);
  return { url: `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`, stop: () => container.stop() };
};

const testDatabaseName = () => `tracelight_test_${randomUUID().slice(0, 8)}`;

/** One database per spec file, dropped afterwards. */
const harness = () => {
  let database: MongoDatabase | undefined;
  let stopServer: (() => Promise<unknown>) | undefined;
  return {
    setup: async () => {
      const server = await startServer();
      stopServer = server.stop;
      database = new MongoDatabase({ url: server.url, serverSelectionTimeoutMS: 5000, databaseName: testDatabaseName() });
      await database.connect();
      return mongoRepositories(database);
    },
    teardown: async () => {
      await database?.db.dropDatabase().catch(() => undefined);
      await database?.close();
      await stopServer?.();
    },
  };
};

(available ? describe : describe.skip)('MongoDB adapter', () => {
  describeRepositoryContract('mongodb', harness(), { recordLimit: 'mongodb-16-MiB' });
});

(available ? describe : describe.skip)('MongoDB migrations', () => {
  let server: { url: string; stop: () => Promise<unknown> };
  const opened: MongoDatabase[] = [];
  const open = (databaseName: string) => {
    const database = new MongoDatabase({ url: server.url, serverSelectionTimeoutMS: 5000, databaseName });
    opened.push(database);
    return database;
  };
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    for (const d of opened) {
      await d.db.dropDatabase().catch(() => undefined);
      await d.close();
    }
    await server.stop();
  });

  /** A migration that takes a while and counts how often, and how many at once, it ran. */
  const watched = () => {
    const seen = { runs: 0, running: 0, mostAtOnce: 0 };
    const migration: MongoMigration = {
      version: 1,
      name: 'watched',
      up: async () => {
        seen.runs++;
        seen.running++;
        seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.running);
        await new Promise((resolve) => setTimeout(resolve, 300));
        seen.running--;
      },
    };
    return { seen, migration };
  };

  it('migrates in one process at a time when several start together: each migration runs once, and every process starts', async () => {
    const name = testDatabaseName();
    const { seen, migration } = watched();
    await Promise.all([open(name), open(name), open(name)].map((d) => d.connect([migration])));
    expect(seen).toEqual({ runs: 1, running: 0, mostAtOnce: 1 });
    expect(await open(name).db.collection('schema_migration_lease').countDocuments()).toBe(0);
  });

  it('migration 14: a database holding the version-7 ids of earlier builds has every id the server made re-keyed to version 4, every reference with it; client ids stay', async () => {
    const name = testDatabaseName();
    const before = open(name);
    await before.connect();
    const world = await storeV7World(mongoRepositories(before));
    // The database as an earlier build left it: its data, and migration 14 not applied yet.
    await before.db.collection<{ _id: number }>('schema_migrations').deleteOne({ _id: 14 });
    const after = open(name);
    await after.connect();
    await expectRekeyed(mongoRepositories(after), world);
    // Run again (a process that stopped midway, or a second start), it changes nothing.
    await MIGRATIONS.find((m) => m.version === 14)!.up(after.db);
    await expectRekeyed(mongoRepositories(after), world);
  });

  it('migration 14: a session whose version-4 form is the id a client chose for a record of its run keeps its id (the start does not fail); the rest is re-keyed', async () => {
    const name = testDatabaseName();
    const before = open(name);
    await before.connect();
    const world = await storeV7World(mongoRepositories(before));
    const clash = await storeSessionClash(mongoRepositories(before), world);
    await before.db.collection<{ _id: number }>('schema_migrations').deleteOne({ _id: 14 });
    const after = open(name);
    await after.connect();
    await expectSessionClashKept(mongoRepositories(after), world, clash);
    await MIGRATIONS.find((m) => m.version === 14)!.up(after.db);
    await expectSessionClashKept(mongoRepositories(after), world, clash);
  });

  it('a migration that fails is named in the error', async () => {
    const failing = { version: 1_000, name: 'a step that fails', up: async () => Promise.reject(new Error('it broke')) };
    await expect(open(testDatabaseName()).connect([failing])).rejects.toThrow('migration 1000 (a step that fails) failed: it broke');
  });

  it('takes over the lease of a process that died while migrating, once it has expired', async () => {
    const name = testDatabaseName();
    const first = open(name);
    await first.client.connect();
    await first.db
      .collection<{ _id: string; owner: string; expiresAt: Date }>('schema_migration_lease')
      .insertOne({ _id: 'migrations', owner: 'a process that died', expiresAt: new Date(Date.now() - 1) });
    const { seen, migration } = watched();
    await open(name).connect([migration]);
    expect(seen.runs).toBe(1);
  });
});

(available ? describe : describe.skip)('MongoDB: deleting a project', () => {
  const h = harness();
  let repos: Awaited<ReturnType<typeof h.setup>>;
  let db: import('mongodb').Db;
  beforeAll(async () => {
    repos = await h.setup();
    // The harness's database: the repositories were built over it.
    db = (repos.projects as unknown as { db: import('mongodb').Db }).db;
  });
  afterAll(() => h.teardown());

  it('leaves no document of the project or its runs in any collection', async () => {
    const owner = await right(repos.users.insert(aUser()));
    const { project, runs } = await storeAFullProject(repos, owner.id);
    const ids = [project.id, ...runs.map((r) => r.id)];
    // Every collection, found in the database itself: one a later migration adds shows up here.
    const documentsOf = async () => {
      const counts: Record<string, number> = {};
      for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
        const n = await db.collection(name).countDocuments({ $or: [{ _id: { $in: ids } as never }, { projectId: project.id }, { runId: { $in: ids.slice(1) } }] });
        if (n > 0) counts[name] = n;
      }
      return counts;
    };
    expect(await documentsOf()).toEqual({ log_records: 9, projects: 1, run_columns: 3, run_insights: 3, run_scorer_settings: 3, runs: 3, scoring_jobs: 3 });
    expect(await right(repos.projects.retire(owner.id, project.id, new Date()))).toEqual(project);
    expect(await documentsOf()).toEqual({ log_records: 9, project_deletions: 1, run_columns: 3, run_insights: 3, run_scorer_settings: 3, runs: 3, scoring_jobs: 3 });
    expect(await purgeRetired(repos.projects, project.id)).toEqual({ runs: 3, records: 9, steps: expect.any(Number) });
    expect(await documentsOf()).toEqual({});
  });

  it('removes what a write under a run left when it finds the run gone once written', async () => {
    const owner = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    const run = await right(repos.runs.insert(aRun(project)));
    // A deletion midway: its project and run documents removed, what hangs off the run not yet.
    await db.collection('projects').deleteOne({ _id: project.id as never });
    await db.collection('runs').deleteOne({ _id: run.id as never });
    expect((await left(repos.logRecords.ingest(run.id, [aRecord(run)], ['input'])))._tag).toBe('NotFound');
    expect((await left(repos.runs.insert(aRun(project))))._tag).toBe('NotFound');
    expect(await db.collection('log_records').countDocuments({ runId: run.id })).toBe(0);
    expect(await db.collection('run_columns').countDocuments({ _id: run.id as never })).toBe(0);
    expect(await db.collection('runs').countDocuments({ projectId: project.id })).toBe(0);
  });
});

// A search picking records by an indexed id is led by that index whatever its order (a hint). The wire
// test server has no query planner (every query a full scan) and answers no `explain`: there, what is
// checked is that every index a hint may name exists once migrated (a real server refuses a hint naming
// none); a real server is asked for its winning plan too.
(available ? describe : describe.skip)('MongoDB record search plans', () => {
  let server: { url: string; stop: () => Promise<unknown> };
  let database: MongoDatabase;
  beforeAll(async () => {
    server = await startServer();
    database = new MongoDatabase({ url: server.url, serverSelectionTimeoutMS: 5000, databaseName: testDatabaseName() });
    await database.connect();
  });
  afterAll(async () => {
    await database.db.dropDatabase().catch(() => undefined);
    await database.close();
    await server.stop();
  });

  it('has every index a search may be led by', async () => {
    const names = (await database.db.collection('log_records').listIndexes().toArray()).map((i) => i.name as string);
    expect(names).toEqual(expect.arrayContaining([...LEADING_INDEXES]));
  });

  it('has the indexes that lead filters matching little: values (a compound wildcard) and incomplete records', async () => {
    const byName = new Map((await database.db.collection('log_records').listIndexes().toArray()).map((i) => [i.name as string, i]));
    expect(byName.get('log_records_by_run_values')).toMatchObject({ key: { runId: 1, '$**': 1 } });
    // Its partial filter too, where the server lists index options (the wire test server lists keys alone).
    const incomplete = byName.get('log_records_incomplete');
    expect(incomplete).toMatchObject({ key: { runId: 1, isTrace: 1, createdAt: -1, createdAtMicros: -1, _id: -1 } });
    if (incomplete !== undefined && Object.keys(incomplete).length > 3) expect(incomplete).toMatchObject({ partialFilterExpression: { isComplete: false } });
  });

  it.each([
    ['a status code', { statusCode: 503 }, 'log_records_by_run_values'],
    ['a tag', { tags: { $in: ['tenant-7'] } }, 'log_records_by_run_values'],
    ['a metric range', { 'metrics.tokens': { $gte: 40_000 } }, 'log_records_by_run_values'],
    ['incomplete records', { isComplete: { $eq: false } }, 'log_records_incomplete'],
  ])('leads a search for %s with an index, where the server explains its plans', async (_, filter, index) => {
    let explained: Document;
    try {
      explained = await database.db.command({
        explain: { find: 'log_records', filter: { projectId: 'p', runId: 'r', isTrace: false, ...filter }, sort: { createdAt: -1, _id: -1 }, limit: 51 },
        verbosity: 'queryPlanner',
      });
    } catch (e) {
      if (/no such command/i.test(String(e))) return; // the wire test server: no planner to ask
      throw e;
    }
    // With no record at all, every plan ties; the candidates the planner weighed must include the index.
    expect(JSON.stringify(explained['queryPlanner'])).toContain(`"indexName":"${index}"`);
  });

  it.each([
    ['trace_id', 'traceId', 'log_records_by_run_trace'],
    ['parent_id', 'parentId', 'log_records_by_run_parent'],
    ['session_id', 'sessionId', 'log_records_by_run_session'],
    ['id', 'recordId', 'log_records_by_run_id'],
  ])('leads a search by %s with its index, newest first, where the server explains its plans', async (columnId, field, index) => {
    const id = randomUUID();
    const hint = leadingIndex([{ type: 'id', columnId, operator: 'eq', value: id }]);
    expect(hint).toBe(index);
    let explained: Document;
    try {
      explained = await database.db.command({
        explain: { find: 'log_records', filter: { projectId: 'p', runId: 'r', isTrace: false, [field]: id }, sort: { createdAt: -1, _id: -1 }, hint },
        verbosity: 'queryPlanner',
      });
    } catch (e) {
      if (/no such command/i.test(String(e))) return; // the wire test server: no planner to ask
      throw e;
    }
    expect(JSON.stringify(explained['queryPlanner']?.winningPlan)).toContain(`"indexName":"${index}"`);
  });
});

(available ? describe : describe.skip)('MongoDB: a search past its time budget', () => {
  const h = harness();
  let repos: Awaited<ReturnType<typeof h.setup>>;
  beforeAll(async () => {
    repos = await h.setup();
  });
  afterAll(() => h.teardown());

  it('is stopped by the server at its maxTimeMS and answered TimedOut (the e2e suite shows this on SQLite only)', async () => {
    const owner = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    const run = await right(repos.runs.insert(aRun(project)));
    // 20,000 records that a case-insensitive filter matching none reads whole: far more than the 1 ms
    // budget on any server, and a slower machine only makes it more so.
    for (let batch = 0; batch < 20; batch++)
      await right(repos.logRecords.ingest(run.id, Array.from({ length: 1000 }, (_, i) => aRecord(run, { name: `r${batch}-${i}`, input: `Ünïcödé ${'é'.repeat(300)} ${i}` })), []));
    const search = (maxMs: number) =>
      repos.logRecords.search({
        projectId: run.projectId,
        runId: run.id,
        scope: 'traces',
        filters: [{ type: 'text', columnId: 'input', operator: 'contains', value: 'NOTHING LIKE THIS', caseSensitive: false }],
        sort: null,
        page: { startingToken: 0, limit: 10 },
        maxBytes: 1 << 30,
        maxMs,
      });
    expect(await left(search(1))).toMatchObject({ _tag: 'TimedOut', message: expect.stringContaining('Narrow it') });
    // With time to finish, the same search answers: nothing found.
    expect((await right(search(600_000))).items).toEqual([]);
  }, 300_000);
});

(available ? describe : describe.skip)('MongoDB: a transaction whose process died', () => {
  it('is never seen by another client: a server killed mid-transaction leaves what was committed (the scoring queue relies on it)', async () => {
    const server = await startServer();
    const name = testDatabaseName();
    const { MongoClient } = await import('mongodb');
    const client = new MongoClient(server.url, { serverSelectionTimeoutMS: 5000 });
    try {
      await client.connect();
      const jobs = client.db(name).collection<{ _id: string; state: string }>('jobs');
      await jobs.insertOne({ _id: 'job', state: 'computing' });
      // Another process begins a transaction, marks the job finished, and is killed before it commits.
      const script = `const { MongoClient } = require(${JSON.stringify(require.resolve('mongodb'))});
        (async () => {
          const c = new MongoClient(${JSON.stringify(server.url)}); await c.connect();
          const s = c.startSession(); s.startTransaction();
          await c.db(${JSON.stringify(name)}).collection('jobs').updateOne({ _id: 'job' }, { $set: { state: 'succeeded' } }, { session: s });
          process.stdout.write('written\\n');
          await new Promise(() => {});
        })();`;
      const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout!.on('data', (d: Buffer) => String(d).includes('written') && resolve());
          void exited.then(() => reject(new Error('the writing process ended before it wrote')));
        });
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      // A mongod shows nothing uncommitted; the wire server rolls the transaction back once the dead
      // process's connection is closed, which it may learn a moment after this process does.
      let seen = await jobs.findOne({ _id: 'job' });
      for (let tries = 0; seen?.state !== 'computing' && tries < 300; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        seen = await jobs.findOne({ _id: 'job' });
      }
      expect(seen).toEqual({ _id: 'job', state: 'computing' });
    } finally {
      await client.db(name).dropDatabase().catch(() => undefined);
      await client.close();
      await server.stop();
    }
  }, 120_000);
});
