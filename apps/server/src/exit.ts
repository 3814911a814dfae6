// How the server process ends: the log lines still buffered first (the logger writes asynchronously), then its last words.
import { flushLogsSync } from './logger';

export function exit(code: number, lastWords?: string): never {
  flushLogsSync();
  if (lastWords !== undefined) process.stderr.write(lastWords);
  return process.exit(code);
}
