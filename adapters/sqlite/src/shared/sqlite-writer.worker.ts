// The SQLite writer thread: owns the only writing connection, migrates the schema, and runs every
// write of the process through group commit. The server's event loop never waits on an fsync or on
// another process's write lock, and a large ingest does not hold it up.
import { parentPort, workerData } from 'node:worker_threads';
import { unavailable } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { SQLITE_REPOSITORIES } from '../sqlite.repositories';
import { NoRoomToStart, buildRepositories } from '@tracelight/ports';
import { GroupCommit } from './group-commit';
import { SqliteDatabase } from './sqlite-database';
import type { FromWriter, ToWriter, WriteRequest, WriterData } from './writer-protocol';

const port = parentPort;
if (!port) throw new Error('sqlite-writer.worker must run as a worker thread');
const send = (m: FromWriter) => port.postMessage(m);

let database: SqliteDatabase;
try {
  database = new SqliteDatabase(workerData as WriterData);
} catch (e) {
  send({ type: 'failed', message: e instanceof Error ? e.message : String(e), noRoom: e instanceof NoRoomToStart });
  process.exit(1);
}

const repositories = buildRepositories(SQLITE_REPOSITORIES, database) as unknown as Record<
  string,
  Record<string, (...args: unknown[]) => () => Promise<E.Either<unknown, unknown>>>
>;

const execute = async (w: WriteRequest) => {
  const method = repositories[w.repository]?.[w.method];
  if (typeof method !== 'function') return E.left(unavailable(`no write ${w.repository}.${w.method}`));
  return (await method.apply(repositories[w.repository], [...w.args])()) as E.Either<never, unknown>;
};

const commits = new GroupCommit<number, WriteRequest>(database.db, execute, (settled) =>
  send({ type: 'settled', results: settled.map(({ key, outcome }) => ({ id: key, outcome })) }),
);

let closing = false;
const closeWhenIdle = () => {
  if (!commits.idle) return void setTimeout(closeWhenIdle, 1);
  database.close();
  port.close(); // the thread ends; the other side waits for its exit
};

port.on('message', (m: ToWriter) => {
  if (m.type === 'close') {
    closing = true;
    return closeWhenIdle();
  }
  if (closing)
    return send({ type: 'settled', results: m.writes.map(({ id }) => ({ id, outcome: E.left(unavailable('storage is closing')) })) });
  for (const w of m.writes) commits.submit(w.id, w);
});
send({ type: 'ready' });
