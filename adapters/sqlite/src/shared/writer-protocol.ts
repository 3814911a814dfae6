// Messages between the server's thread and a SQLite thread (the writer, or a search thread). Everything in them is
// structured-clonable: domain entities (strings, numbers, Dates, arrays, plain objects) and Eithers.
import type { Repositories } from '@tracelight/ports';
import type { WriteOutcome } from './group-commit';
import type { SqliteOptions } from './sqlite-database';

export type RepositoryName = keyof Repositories;

export interface WriteRequest {
  readonly id: number;
  readonly repository: RepositoryName;
  readonly method: string;
  readonly args: ReadonlyArray<unknown>;
}

/** The writes requested during one turn of the request thread's event loop travel together. */
export type ToWriter = { readonly type: 'writes'; readonly writes: ReadonlyArray<WriteRequest> } | { readonly type: 'close' };

export type FromWriter =
  | { readonly type: 'ready' }
  | { readonly type: 'failed'; readonly message: string; readonly noRoom: boolean }
  | {
      readonly type: 'settled';
      readonly results: ReadonlyArray<{ readonly id: number; readonly outcome: WriteOutcome }>;
      /** From a search thread: what its prepared search statements hold, after these calls. */
      readonly held?: { readonly entries: number; readonly size: number };
    };

export type WriterData = Pick<SqliteOptions, 'path' | 'synchronous' | 'maxBytes'>;
