// A SQLite search thread: record searches on a read-only connection of its own. A search reads rows
// until it has a page of matches, and one whose filters match few rows of a large run reads most of
// the run (a second or more for a million spans): on the server's event loop that held every other
// request, probes included, for as long. Here it holds only the searches queued behind it.
import { unavailable } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { SqliteDatabase } from './sqlite-database';
import { startSqliteWorker } from './sqlite-worker-start';
import type { SqliteLogRecordRepository } from '../tracing/sqlite-log-record.repository';
import type { WriteOutcome } from './group-commit';
import type { ToWriter, WriteRequest } from './writer-protocol';

const { port, send, database, repositories, call } = startSqliteWorker(
  'a search thread',
  ({ path }) => new SqliteDatabase({ path, readonly: true }),
);

const logRecords = repositories['logRecords'] as unknown as SqliteLogRecordRepository;

/** Only reads: a write on this read-only connection would fail all the same, but is refused by name first. */
const READS = new Set(['logRecords.search']);

let closed = false;

const execute = async (r: WriteRequest): Promise<WriteOutcome> => {
  if (closed) return E.left(unavailable('storage is closing'));
  if (!READS.has(`${r.repository}.${r.method}`)) return E.left(unavailable(`no search ${r.repository}.${r.method}`));
  try {
    return await call(r)();
  } catch (e) {
    // Repositories answer failures as values; a throw is a bug, answered for this call alone.
    return E.left(unavailable(e instanceof Error ? e.message : String(e)));
  }
};

port.on('message', (m: ToWriter) => {
  if (m.type === 'close') {
    closed = true;
    database.close();
    return port.close(); // the thread ends; the other side waits for its exit
  }
  void (async () => {
    for (const r of m.writes) send({ type: 'settled', results: [{ id: r.id, outcome: await execute(r) }], held: logRecords.heldStatements() });
  })();
});
send({ type: 'ready' });
