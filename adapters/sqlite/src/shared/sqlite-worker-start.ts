// What both SQLite threads (the writer and a search thread) do first: find their port, open their own
// connection (reporting a failure to open as a message, since the other side waits for `ready` or
// `failed`), and build the repositories they serve calls to.
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { unavailable } from '@tracelight/domain';
import { NoRoomToStart, buildRepositories } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import { SQLITE_REPOSITORIES } from '../sqlite.repositories';
import { SqliteDatabase } from './sqlite-database';
import type { WriteOutcome } from './group-commit';
import type { FromWriter, WriteRequest, WriterData } from './writer-protocol';

type RepositoryCall = () => Promise<WriteOutcome>;
type Repositories = Record<string, Record<string, (...args: unknown[]) => RepositoryCall>>;

export interface SqliteWorker {
  readonly port: MessagePort;
  readonly send: (m: FromWriter) => void;
  readonly database: SqliteDatabase;
  readonly repositories: Repositories;
  /** The repository call a request names, or an `unavailable` answer when this thread has no such method. */
  readonly call: (r: WriteRequest) => RepositoryCall;
}

/** Starts a SQLite thread of `role` on a connection `open` makes from the thread's data; exits the thread when it cannot open. */
export const startSqliteWorker = (role: string, open: (data: WriterData) => SqliteDatabase): SqliteWorker => {
  const port = parentPort;
  if (!port) throw new Error(`${role} must run as a worker thread`);
  const send = (m: FromWriter) => port.postMessage(m);

  let database: SqliteDatabase;
  try {
    database = open(workerData as WriterData);
  } catch (e) {
    send({ type: 'failed', message: e instanceof Error ? e.message : String(e), noRoom: e instanceof NoRoomToStart });
    process.exit(1);
  }

  const repositories = buildRepositories(SQLITE_REPOSITORIES, database) as unknown as Repositories;
  const call = (r: WriteRequest): RepositoryCall => {
    const repository = repositories[r.repository];
    const method = repository?.[r.method];
    if (typeof method !== 'function') return () => Promise.resolve(E.left(unavailable(`no ${role} call ${r.repository}.${r.method}`)));
    return method.apply(repository, [...r.args]);
  };
  return { port, send, database, repositories, call };
};
