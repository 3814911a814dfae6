// The process a backup's copy is made in (started by copyDatabase, sqlite-backup.ts): `VACUUM INTO` on a
// read-only connection of its own, run on a thread of this process so that its main thread stays free
// to see the process that started it gone (killed outright), and then ends this one at once: nothing
// would use the copy, and the copy's read snapshot would meanwhile keep a running server from
// checkpointing its write-ahead log.
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SqliteDatabase } from './sqlite-database';

/** What this process tells the one that started it, once, before it exits. */
export type CopyOutcome =
  | { readonly ok: true }
  | {
      readonly ok: false;
      readonly code: string | undefined;
      readonly message: string;
      /** About the size the whole copy would have had (the database's pages in use), when known. */
      readonly bytes?: number;
    };

interface CopyData {
  readonly source: string;
  readonly into: string;
}

if (isMainThread) {
  const send = process.send?.bind(process);
  if (!send) throw new Error('sqlite-backup.process must be started with an IPC channel (copyDatabase)');
  // Its parent gone, the channel closes. Killed, not exited: an exit would wait for the thread, which
  // cannot be interrupted in the middle of the copy.
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  const report = (outcome: CopyOutcome) => send(outcome, undefined, {}, () => process.exit(0));
  const [source, into] = process.argv.slice(2);
  if (source === undefined || into === undefined) report({ ok: false, code: undefined, message: 'sqlite-backup.process takes the database and the file to copy it into' });
  else {
    const copier = new Worker(__filename, { workerData: { source, into } satisfies CopyData });
    copier.once('message', report);
    copier.once('error', (e) => report({ ok: false, code: undefined, message: e.message }));
  }
} else {
  const { source, into } = workerData as CopyData;
  let outcome: CopyOutcome;
  let database: SqliteDatabase | undefined;
  let bytes: number | undefined;
  try {
    database = new SqliteDatabase({ path: source, readonly: true });
    const { db } = database;
    const pragma = (name: string) => db.pragma(name, { simple: true }) as number;
    // For a failed write's cause (whyWritesFail): the copy holds the pages in use.
    bytes = (pragma('page_count') - pragma('freelist_count')) * pragma('page_size');
    // One read transaction, one snapshot: consistent whatever is written meanwhile, and in WAL mode a
    // reader blocks no writer. The copy is compacted (no free pages) and has no WAL of its own.
    db.prepare('VACUUM INTO ?').run(into);
    outcome = { ok: true };
  } catch (e) {
    outcome = { ok: false, code: (e as { code?: string }).code, message: e instanceof Error ? e.message : String(e), ...(bytes !== undefined ? { bytes } : {}) };
  } finally {
    database?.close();
  }
  parentPort?.postMessage(outcome);
}
