// The SQLite writer thread: owns the only writing connection, migrates the schema, and runs every
// write of the process through group commit. The server's event loop never waits on an fsync or on
// another process's write lock, and a large ingest does not hold it up.
import { unavailable } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { GroupCommit } from './group-commit';
import { SqliteDatabase } from './sqlite-database';
import { startSqliteWorker } from './sqlite-worker-start';
import type { ToWriter, WriteRequest } from './writer-protocol';

const { port, send, database, call } = startSqliteWorker('the writer thread', (data) => new SqliteDatabase(data));

const commits = new GroupCommit<number, WriteRequest>(database.db, (w) => call(w)(), (settled) =>
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
