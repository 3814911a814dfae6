// The closed set of expected failures. A thrown error means a bug; these are values.
export type DomainError =
  | { readonly _tag: 'NotFound'; readonly entity: string; readonly id: string }
  | { readonly _tag: 'Conflict'; readonly message: string }
  | { readonly _tag: 'Invalid'; readonly path: ReadonlyArray<string | number>; readonly message: string; readonly input?: unknown }
  | { readonly _tag: 'Unauthorized'; readonly message: string }
  | { readonly _tag: 'Forbidden'; readonly message: string }
  | { readonly _tag: 'Unavailable'; readonly message: string }
  /** Storage has no room for this write (disk or quota full): nothing of it was stored. Not transient: space must be freed. */
  | { readonly _tag: 'StorageFull'; readonly message: string }
  /** A read ran past its time budget and was stopped: nothing is wrong with it but its cost; a narrower one may pass. */
  | { readonly _tag: 'TimedOut'; readonly message: string }
  /**
   * Too much of this kind of work waits already: refused at once rather than kept waiting, worth another
   * try after `retryAfterSeconds`. `mine`: the caller's own share is taken (its own requests wait);
   * else everyone's.
   */
  | { readonly _tag: 'Busy'; readonly message: string; readonly retryAfterSeconds: number; readonly mine: boolean };

export const notFound = (entity: string, id: string): DomainError => ({ _tag: 'NotFound', entity, id });
export const conflict = (message: string): DomainError => ({ _tag: 'Conflict', message });
export const invalid = (path: ReadonlyArray<string | number>, message: string, input?: unknown): DomainError =>
  input === undefined ? { _tag: 'Invalid', path, message } : { _tag: 'Invalid', path, message, input };
export const unauthorized = (message = 'Could not validate credentials'): DomainError => ({ _tag: 'Unauthorized', message });
export const forbidden = (message: string): DomainError => ({ _tag: 'Forbidden', message });
export const unavailable = (message: string): DomainError => ({ _tag: 'Unavailable', message });
export const storageFull = (message: string): DomainError => ({ _tag: 'StorageFull', message });
export const timedOut = (message: string): DomainError => ({ _tag: 'TimedOut', message });
export const busy = (message: string, retryAfterSeconds: number, mine: boolean): DomainError => ({ _tag: 'Busy', message, retryAfterSeconds, mine });
/** A record search stopped at its budget (RecordQuery.maxMs): what the caller is told, whatever the engine. */
export const searchTimedOut = (maxMs: number): DomainError =>
  timedOut(
    `The search read for ${maxMs} ms without finishing its page and was stopped. Narrow it (a created_at range reads the least), or ask again when the service is less busy.`,
  );
