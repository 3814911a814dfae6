// A file the admin CLI writes (an export, a backup) is there whole or not at all: it is written under a
// temporary name beside it, made durable, and linked into place only then. Stopped or failed midway,
// the temporary file is removed; killed outright, the next write to the same file removes it.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/** What is written, as the messages name it. */
export type Written = 'export' | 'backup';
const ONE: Readonly<Record<Written, string>> = { export: 'an export', backup: 'a backup' };

/** Does `p` name anything (a dangling link included)? */
const exists = (p: string): boolean => {
  try {
    fs.lstatSync(p);
    return true;
  } catch {
    return false;
  }
};

/** The signals that stop a write to a file, which then removes what it wrote. */
const STOPPING_SIGNALS: ReadonlyArray<NodeJS.Signals> = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Where a process id means something: the host's name and, on Linux, the inode of the pid namespace.
 * Two containers on one volume may both run an export as pid 1 (or any same number), and a pid of one
 * says nothing about a process of the other; whether a temporary file's process still runs is asked
 * only of a file written where this process runs. The name is kept to the characters of a host name
 * (dots made `_`, so that the file's name splits at its dots).
 */
const whereTag = (): string => {
  const host = os.hostname().replace(/[^A-Za-z0-9-]/g, '_').slice(0, 63) || '_';
  let ns = '0';
  try {
    ns = /\[(\d+)\]/.exec(fs.readlinkSync('/proc/self/ns/pid'))?.[1] ?? '0';
  } catch {
    // not Linux, or no /proc: the host's name alone
  }
  return `${host}.${ns}`;
};


/**
 * The temporary name of a write to `file` by this process: never one of another process, as the
 * random part differs where host, namespace and pid are the same (two containers on one volume, each
 * its own pid 1, and a host name they share).
 */
export const partialName = (file: string, where = whereTag(), pid = process.pid): string =>
  path.join(path.dirname(file), `.${path.basename(file)}.${where}.${pid}.${randomBytes(4).toString('hex')}.partial`);

/** Whether a process of this id is running (one of another user's too: EPERM). */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * What a backup's copy stopped or failed midway may leave beside its temporary file: SQLite's rollback
 * journal of it (it writes the copy in one transaction). An export leaves none.
 */
const JOURNAL = '-journal';

/** `.FILE.<host>.<pid namespace>.<pid>.<random>.partial`, and SQLite's journal of one: what each part is. */
const PARTIAL = new RegExp(`^([A-Za-z0-9_-]+\\.\\d+)\\.(\\d+)\\.[0-9a-f]{8}\\.partial(${JOURNAL})?$`);

/** Removes a temporary file and what SQLite may have left beside it. */
const discard = (partial: string): void => {
  for (const name of [partial, `${partial}${JOURNAL}`]) fs.rmSync(name, { force: true });
};

/**
 * Removes the temporary files of earlier writes to `file` whose process is gone (killed outright: a
 * SIGKILL, a crash, a machine that stopped), saying so: each holds part of a project's inputs and
 * outputs or of the database, and nothing else would ever remove it. One of a process still running
 * is left alone, and so is one written on another host or in another container (another pid
 * namespace), whose process this one cannot see: it is named, for the operator to remove once that
 * write is over.
 */
const removeAbandonedPartials = (file: string, what: Written, here: string): void => {
  const prefix = `.${path.basename(file)}.`;
  let names: string[];
  try {
    names = fs.readdirSync(path.dirname(file)).sort();
  } catch {
    return; // the directory's problem is told when the temporary file is made
  }
  for (const name of names) {
    const own = name.startsWith(prefix) ? PARTIAL.exec(name.slice(prefix.length)) : null;
    if (!own) continue;
    const pid = Number(own[2]);
    const abandoned = path.join(path.dirname(file), name);
    if (own[1] !== here) {
      if (own[3] === undefined)
        process.stderr.write(
          `tracelight-admin: left ${abandoned} as it is: the unfinished ${what} of a process (${pid}) on another host or in another container, which this one cannot see; remove it once no ${what} to ${file} is running there\n`,
        );
      continue;
    }
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
    try {
      fs.rmSync(abandoned);
      process.stderr.write(`tracelight-admin: removed ${abandoned}, the unfinished ${what} of a process (${pid}) that is no longer running\n`);
    } catch {
      // not ours to remove (another user's directory entry): left as it was
    }
  }
};

/**
 * A failure to write `where` in words, ending with what became of the file (`undone`): the disk full,
 * or the largest file this process may write reached; undefined for any other.
 */
export const inWords = (e: unknown, where: string, undone: string): Error | undefined => {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new Error(`no space left on the disk of ${where} (${String(code)}): ${undone}`);
  if (code === 'EFBIG') return new Error(`${where} grew past the largest file this process may write (EFBIG): ${undone}`);
  return undefined;
};

/** What a write to a file that is not there whole says it left. */
export const notWritten = (what: Written): string => `the ${what} was not written, and no partial file was left`;

/**
 * Runs `produce`, which writes `partial` (a temporary file beside `file`,
 * `.FILE.<host>.<pid namespace>.<pid>.<random>.partial`, made empty and 0600 before it runs), and
 * then makes it `file`; answers what `produce` answers. `file` is never written over: one that
 * exists is refused, and the temporary file is linked into place (a link refuses a file made
 * meanwhile, where a rename would replace it) only once whole and synced, and the directory synced
 * after. So a write that fails (a full disk) or is stopped (Ctrl-C, SIGTERM, SIGHUP) leaves neither
 * `file` nor the temporary one, and says so: nothing half written sits where a whole file is
 * expected. `produce` settles only once nothing of it writes `partial` any more; `onStop` gives it a
 * way to end what writes there (another process) when a signal stops the write.
 */
export const writeWhole = async <A>(
  file: string,
  what: Written,
  produce: (partial: string, onStop: (halt: () => Promise<void>) => void) => Promise<A>,
): Promise<A> => {
  if (exists(file)) throw new Error(`${file} exists already (EEXIST): ${ONE[what]} is never written over a file`);
  const here = whereTag();
  removeAbandonedPartials(file, what, here);
  const partial = partialName(file, here);
  let linked = false;
  /** The temporary name no longer holds this write's file: what is there is not this process's to remove. */
  let lost = false;
  let stopping = false;
  let halt: (() => Promise<void>) | undefined;
  /** Stopped, the signal's handler ends the process: what was under way waits for that. */
  const forever = () => new Promise<never>(() => undefined);
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    // What writes the temporary file ends first: removed while still written, it could be made again.
    // Nothing of the kind started: no wait, in which it could start.
    if (halt) await halt().catch(() => undefined);
    discard(partial);
    process.stderr.write(
      linked ? `tracelight-admin: stopped by ${signal} once the ${what} was written whole to ${file}\n` : `tracelight-admin: stopped by ${signal}: ${notWritten(what)}\n`,
    );
    process.exit(128 + (os.constants.signals[signal] ?? 0));
  };
  const onSignal = (signal: NodeJS.Signals) => void stop(signal);
  // Before the temporary file exists, so that no signal finds it there unheard.
  for (const signal of STOPPING_SIGNALS) process.on(signal, onSignal);
  let fd: number | undefined;
  try {
    fd = fs.openSync(partial, 'wx', 0o600);
  } catch (e) {
    for (const signal of STOPPING_SIGNALS) process.off(signal, onSignal);
    throw new Error(`cannot write the ${what} to ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  try {
    const done = await produce(partial, (h) => (halt = h));
    if (stopping) return await forever();
    // A sync is of the file, whoever wrote it: an export's stream, on a descriptor of its own, or the
    // process that copies a backup.
    fs.fsyncSync(fd);
    // What is linked is what the name holds: the file this process made and synced, never another put
    // there meanwhile (by a person, or a clean-up that took it for abandoned).
    const made = fs.fstatSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    const named = fs.lstatSync(partial, { throwIfNoEntry: false });
    if (named?.ino !== made.ino || named.dev !== made.dev) {
      lost = true;
      throw new Error(`${partial}, the ${what}'s temporary file, was ${named ? 'replaced' : 'removed'} while it was written: the ${what} was not written${named ? ', and what is there now is left as it is' : ''}`);
    }
    try {
      fs.linkSync(partial, file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || !(code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') || exists(file)) throw e;
      fs.renameSync(partial, file); // a file system without hard links
    }
    linked = true;
    fs.rmSync(partial, { force: true });
    const dir = fs.openSync(path.dirname(file), 'r');
    try {
      fs.fsyncSync(dir);
    } finally {
      fs.closeSync(dir);
    }
    return done;
  } catch (e) {
    if (stopping) return await forever();
    if (fd !== undefined)
      try {
        fs.closeSync(fd);
      } catch {
        // the failure told is the first one
      }
    if (!lost) discard(partial);
    throw inWords(e, file, notWritten(what)) ?? e;
  } finally {
    for (const signal of STOPPING_SIGNALS) process.off(signal, onSignal);
  }
};
