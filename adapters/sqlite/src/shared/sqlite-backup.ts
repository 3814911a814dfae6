// A consistent copy of a SQLite database, made in a process of its own so that it can be stopped at any
// moment. `VACUUM INTO` runs inside SQLite from its start to its end: on the caller's thread nothing
// else runs meanwhile (a Ctrl-C is not even heard), and on a thread of the caller's process an exit
// waits for it to end. SQLite's online backup API (better-sqlite3's `backup()`) copies in steps between
// which the caller's event loop turns, but starts over whenever another connection writes between two
// steps: with a server writing all the time, a large database's copy would never end.
import { fork } from 'node:child_process';
import * as fs from 'node:fs';
import type { CopyOutcome } from './sqlite-backup.process';
import { compiled } from './sqlite-thread';

export interface DatabaseCopy {
  /**
   * Settles once the process making the copy has ended: resolves when the file holds the whole copy;
   * rejects with why not (`code`: the system's error, ENOSPC or EFBIG, when a write failed and the
   * system says why; otherwise SQLite's).
   */
  readonly done: Promise<void>;
  /** Kills the process making the copy; resolves once it has ended, so that nothing writes the file any more. */
  stop(): Promise<void>;
}

/** An error with a code, as Node's and better-sqlite3's are. */
const coded = (message: string, code: string | undefined): Error => Object.assign(new Error(message), code !== undefined ? { code } : {});

/**
 * SQLite's error for a write that failed keeps no errno (SQLITE_FULL for a short write, whatever its
 * cause; SQLITE_IOERR_WRITE for a failed one), so the system is asked: one page is written into `file`
 * where the whole copy (about `bytes`) would end, or at its end if that is further, and taken back. On a
 * full disk it fails as the copy did (ENOSPC, EDQUOT); past the largest file this process may write,
 * with EFBIG. Undefined when it does not fail (another cause, or one gone meanwhile).
 */
const whyWritesFail = (file: string, bytes: number | undefined): string | undefined => {
  const page = 4096;
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r+');
    const size = fs.fstatSync(fd).size;
    try {
      fs.writeSync(fd, Buffer.alloc(page), 0, page, Math.max(size, (bytes ?? 0) - page));
    } catch (e) {
      return (e as NodeJS.ErrnoException).code;
    }
    fs.ftruncateSync(fd, size);
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
};

/**
 * Copies the database at `source` into `into`, an empty file the caller has made (with the mode it
 * wants), from one read snapshot: whatever other connections and processes (a running server) write
 * meanwhile, the copy is the database as it was at one moment, and in WAL mode the reading blocks no
 * writer. The copy is compacted (no free pages, so nothing deleted is carried) and has no WAL of its
 * own. A copy that fails or is stopped may leave SQLite's rollback journal beside it (`into`-journal):
 * the caller removes both. `script`: the process's, this adapter's compiled one unless an app bundles it.
 */
export const copyDatabase = (source: string, into: string, script = compiled('sqlite-backup.process.js')): DatabaseCopy => {
  const child = fork(script, [source, into], {
    // A process group of its own: a Ctrl-C at a terminal reaches the caller alone, which decides (stop).
    detached: true,
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let outcome: CopyOutcome | undefined;
  let spawnError: Error | undefined;
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
  child.on('message', (m) => (outcome ??= m as CopyOutcome));
  child.on('error', (e) => (spawnError ??= e));
  // After the exit, once its pipes are closed: also when it could not be started (no 'exit' then).
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  let stopped = false;
  const done = ended.then(({ code, signal }) => {
    if (outcome?.ok === true && code === 0) return;
    if (stopped) throw new Error('the copy was stopped');
    if (outcome?.ok === false) {
      const why = /^SQLITE_(FULL|IOERR)/.test(outcome.code ?? '') ? whyWritesFail(into, outcome.bytes) : undefined;
      throw coded(`${outcome.code ?? 'error'}: ${outcome.message}`, why ?? outcome.code);
    }
    const how = spawnError ? spawnError.message : signal ? `killed by ${signal}` : `exit code ${code}`;
    throw new Error(`the process copying the database ended (${how}) without a copy${stderr.trim() ? `: ${stderr.trim()}` : ''}`);
  });
  return {
    done,
    stop: async () => {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await ended;
    },
  };
};
