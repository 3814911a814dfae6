// The MongoDB adapter against a real server: MONGODB_URI when set, else a mongo:7 container when a
// Docker engine answers, else the suite is skipped with one line saying why.
import { describeRepositoryContract } from '@tracelight/testkit';
import * as fs from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { MongoMigration } from './shared/migrations';
import { MongoDatabase } from './shared/mongo-database';
import { mongoRepositories } from './mongodb.module';

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
  await container.exec(['mongosh', '--quiet', '--eval', 'rs.initiate({_id:"rs0",members:[{_id:0,host:"localhost:27017"}]})']);
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
  describeRepositoryContract('mongodb', harness());
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
