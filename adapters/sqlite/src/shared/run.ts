// Runs synchronous better-sqlite3 work as a TaskEither, mapping constraint violations to Conflict.
import { type DomainError, conflict, storageFull, unavailable } from '@tracelight/domain';
import type { Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';

/** A row that does not decode: storage holds something this build cannot read. */
export class CorruptRow extends Error {}

/** Thrown inside a transaction to roll it back and answer with this domain error. */
export class Abort extends Error {
  constructor(readonly error: DomainError) {
    super(error._tag);
  }
}

const isUniqueViolation = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test((e as { code?: string }).code ?? '');

/** A row names a parent that does not exist (foreign keys are on): a project or run deleted meanwhile. */
const isForeignKeyViolation = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: string }).code === 'SQLITE_CONSTRAINT_FOREIGNKEY';

/**
 * SQLite found no room for a write: SQLITE_FULL (the disk is full, or the database reached
 * TRACELIGHT_SQLITE_MAX_BYTES) or SQLITE_IOERR_SHMSIZE (the shared-memory file beside a growing
 * write-ahead log could not be extended, which on a full disk is the same thing).
 */
export const isStorageFull = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && /^SQLITE_(FULL|IOERR_SHMSIZE)$/.test((e as { code?: string }).code ?? '');

/** A failure of `db` as a domain error: storage full, or unavailable. SQLite's own words, never the values. */
export const storageFailure = (e: unknown): DomainError =>
  isStorageFull(e)
    ? storageFull(`${(e as { code: string }).code}: ${(e as Error).message}`)
    : unavailable(messageOf(e));

/**
 * An error's message. Told by its shape, not `instanceof Error`: better-sqlite3 throws instances of the
 * error class of the first copy of the module loaded in the process, which in a process that loads it
 * more than once (Jest, once per test file) belongs to another realm, so `instanceof Error` is false
 * and the message came out as `SqliteError: …` there alone.
 */
const messageOf = (e: unknown): string =>
  typeof e === 'object' && e !== null && typeof (e as { message?: unknown }).message === 'string' ? (e as Error).message : String(e);

/**
 * Runs `work`, a unique violation answering Conflict; a write under a parent (a run under its project,
 * records and settings under their run) gives `missingParent` for a foreign-key violation: the parent
 * is gone (deleted), and the write is refused rather than left an orphan.
 */
export const run =
  <A>(work: () => A, conflictMessage = 'already exists', missingParent?: DomainError): Result<A> =>
  () =>
    Promise.resolve(
      E.tryCatch(work, (e): DomainError => {
        if (e instanceof Abort) return e.error;
        if (isUniqueViolation(e)) return conflict(conflictMessage);
        if (missingParent !== undefined && isForeignKeyViolation(e)) return missingParent;
        if (e instanceof CorruptRow) return unavailable(`corrupt row: ${e.message}`);
        return storageFailure(e);
      }),
    );

