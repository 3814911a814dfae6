// Why the server could not start, in one line, when the reason is the machine's or the operator's (a
// path it may not use, a database it cannot open or reach): the stack trace is kept for what is a bug.
import { CannotStart } from '@tracelight/ports';
import type { ServerConfig } from './config';

/**
 * A database URL's password, as the URL is written: what follows the user's name up to the last `@`
 * (a password written with an unescaped `/` or `@`, which the driver then refuses, is still all of it).
 */
const passwordIn = (url: string): string | undefined => {
  const start = /^[a-z][a-z0-9+.-]*:\/\//i.exec(url)?.[0].length;
  if (start === undefined) return undefined;
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':', start);
  return at > start && colon >= 0 && colon < at ? url.slice(colon + 1, at) : undefined;
};

/** A database URL, or a message that may quote it, as it may be shown: without the URL's password. */
export const withoutPassword = (text: string, url = text): string => {
  const password = passwordIn(url);
  return password ? text.split(password).join('****') : text;
};

/** What SQLite says when it cannot open or write the file (the error's code is lost crossing the writer thread: its words are not). */
const SQLITE_CANNOT_OPEN = /unable to open database file|attempt to write a readonly database|disk I\/O error|not a database|file is not a database/i;

/**
 * The line that says why the start failed, for `e` thrown while starting with `config`; undefined
 * when it looks like a bug (then the stack trace is what helps).
 */
export const startFailure = (e: unknown, config: ServerConfig | undefined): string | undefined => {
  if (!(e instanceof Error)) return undefined;
  if (e instanceof CannotStart) return e.message;
  const database = config?.database;
  if (database?.engine === 'sqlite' && SQLITE_CANNOT_OPEN.test(e.message))
    return `cannot open the SQLite database ${database.path} (${e.message}): it, and the directory it is in, must be a database this process may read and write`;
  if (database?.engine === 'mongodb' && /^Mongo/.test(e.name))
    return `cannot use the MongoDB database at ${withoutPassword(database.url)} (${e.name}: ${withoutPassword(e.message, database.url)}): check TRACELIGHT_DATABASE_URL and that the server answers (a replica set)`;
  const code = (e as NodeJS.ErrnoException).code;
  const where = (e as NodeJS.ErrnoException).path;
  if (where !== undefined && code !== undefined && ['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT'].includes(code))
    return `cannot use ${where} (${code}): TRACELIGHT_DATA_DIR must be a directory this process may read and write, or a path where one can be made`;
  return undefined;
};
