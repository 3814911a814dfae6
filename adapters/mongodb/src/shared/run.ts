// Runs driver calls as a TaskEither: duplicate keys become Conflict, what BSON or MongoDB cannot store
// Invalid (a 422, never a 5xx: the same request is refused whatever the retry), no room StorageFull,
// anything else Unavailable.
import { type DomainError, conflict, invalid, storageFull, unavailable } from '@tracelight/domain';
import type { Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import type { ClientSession, MongoClient } from 'mongodb';
import { PathReporter } from 'io-ts/PathReporter';

/** Our documents keep the domain's UUID strings as `_id`. */
export type StringIdDoc = { _id: string } & Record<string, unknown>;

export class CorruptDocument extends Error {}

/** Thrown inside `run`'s work to answer with this domain error. */
export class Abort extends Error {
  constructor(readonly error: DomainError) {
    super(error._tag);
  }
}

export const isDuplicateKey = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 11000;

/** The server stopped an operation at its `maxTimeMS` (MaxTimeMSExpired, code 50). */
export const isTimeLimit = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && ((e as { code?: unknown }).code === 50 || (e as { codeName?: unknown }).codeName === 'MaxTimeMSExpired');

/**
 * An Error of any realm: Node's own errors (a Buffer's RangeError) are not instances of the Error a
 * sandbox (Jest's) gives the adapter's code.
 */
const isErrorLike = (e: unknown): e is Error =>
  e instanceof Error || (typeof e === 'object' && e !== null && typeof (e as Error).name === 'string' && typeof (e as Error).message === 'string');

const TOO_LARGE = 'a record is larger than MongoDB’s 16 MiB document limit';

/**
 * The driver's BSON serializer writes a command into a buffer of 17 MiB (the 16 MiB limit and room for
 * the command around it) and, past its end, Node's Buffer.write throws a RangeError (ERR_OUT_OF_RANGE)
 * before anything is sent: a document over 17 MiB is refused so, not by the driver's size check or the
 * server. Only when BSON's own encoder threw it (its frame is near the top of the stack, however deep the
 * document), not for a Buffer read of a malformed reply, which is no fault of the request.
 */
const isSerializerOverflow = (e: Error): boolean =>
  e.name === 'RangeError' &&
  (e as { code?: unknown }).code === 'ERR_OUT_OF_RANGE' &&
  (e.stack ?? '').split('\n').slice(1, 6).some((frame) => /[\\/]bson[\\/]/.test(frame));

/**
 * What the engine refuses to store whatever the moment: a NUL in a key, a document over 16 MiB, a
 * JSON object the BSON serializer takes for a BSON value (one with a `_bsontype` member) or refuses
 * otherwise. As a 503 the same request would be retried for ever (exporters do), valid records and all.
 */
const unstorable = (e: unknown): string | undefined => {
  if (!isErrorLike(e)) return undefined;
  const { code, codeName } = e as { code?: unknown; codeName?: unknown };
  if (e.name === 'BSONVersionError') return 'MongoDB cannot store a JSON object with a member named _bsontype (its driver takes such an object for a BSON value)';
  if (e.name === 'BSONError' && !isUnreadable(e)) return `MongoDB cannot store this value: ${e.message}`;
  if (/must not contain null bytes|cannot contain null bytes/.test(e.message))
    return 'MongoDB cannot store a JSON key that contains a NUL character (\\u0000)';
  // 17419: an update (a run's column list growing) would take its document past the limit.
  if (code === 10334 || code === 17419 || /larger than the maximum size|object to insert too large|BSONObjectTooLarge|document after update is larger than/i.test(e.message))
    return TOO_LARGE;
  if (isSerializerOverflow(e)) return TOO_LARGE;
  // The server does not retry it (MongoDB 6.2 and later): the same request would fail again.
  if (codeName === 'TransactionTooLargeForCache' || /TransactionTooLargeForCache/.test(e.message))
    return 'the request holds more than one MongoDB transaction can write on this server: send its records in smaller requests';
  return undefined;
};

/** A stored document the driver could not read (its strings are not UTF-8): the document's fault, not the request's. */
const isUnreadable = (e: Error): boolean => e.name === 'BSONError' && /utf-?8/i.test(e.message);

/** No room for the write: the server's disk (OutOfDiskSpace, code 14031) or an Atlas plan's storage quota. */
const isStorageFull = (e: unknown): boolean =>
  e instanceof Error && ((e as { code?: unknown }).code === 14031 || /OutOfDiskSpace|over your space quota/i.test(e.message));

export const run =
  <A>(work: () => Promise<A>, conflictMessage = 'already exists'): Result<A> =>
  async () => {
    try {
      return E.right(await work());
    } catch (e) {
      if (e instanceof Abort) return E.left(e.error);
      if (isDuplicateKey(e)) return E.left<DomainError>(conflict(conflictMessage));
      const refused = unstorable(e);
      // The request as a whole (a path is within the body: the 422's loc is ['body']).
      if (refused !== undefined) return E.left<DomainError>(invalid([], refused));
      if (e instanceof CorruptDocument || (e instanceof Error && isUnreadable(e))) return E.left<DomainError>(unavailable(`corrupt document: ${e.message}`));
      if (isStorageFull(e)) return E.left<DomainError>(storageFull(`MongoDB: ${(e as { codeName?: unknown }).codeName ?? 'OutOfDiskSpace'}`));
      return E.left<DomainError>(unavailable(e instanceof Error ? e.message : String(e)));
    }
  };

/**
 * `work` in one multi-document transaction on a session of its own, ended whatever happens; its
 * answer. The driver runs `work` again on a transient error (a write conflict): each attempt starts over.
 */
export const inTransaction = async <A>(client: MongoClient, work: (session: ClientSession) => Promise<A>): Promise<A> => {
  const session = client.startSession();
  try {
    return await session.withTransaction(() => work(session));
  } finally {
    await session.endSession();
  }
};

/** A BSON date as the driver returns it. */
export const BsonDate = new t.Type<Date, Date, unknown>(
  'BsonDate',
  (u): u is Date => u instanceof Date,
  (u, c) => (u instanceof Date && !Number.isNaN(u.getTime()) ? t.success(u) : t.failure(u, c)),
  (d) => d,
);

export const decodeOrThrow = <A>(codec: t.Decoder<unknown, A>, value: unknown): A => {
  const r = codec.decode(value);
  if (E.isLeft(r)) throw new CorruptDocument(PathReporter.report(r).join('; '));
  return r.right;
};

/** Domain entity ⇄ document: the entity's `id` is the document's `_id`; nothing else changes. */
export const toDoc = <T extends { readonly id: string }>({ id, ...rest }: T) => ({ _id: id, ...rest });

export const fromDoc = <A>(codec: t.Decoder<unknown, A>) => (doc: unknown): A => {
  if (typeof doc !== 'object' || doc === null) throw new CorruptDocument('not a document');
  const { _id, ...rest } = doc as { _id: unknown };
  return decodeOrThrow(codec, { id: _id, ...rest });
};

export const brandedString = <B>() => t.string as unknown as t.Type<B, string, unknown>;
export const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
/** A field documents written before it existed lack: missing reads as null. */
export const nullWhenMissing = <A>(c: t.Type<A, unknown, unknown>) =>
  new t.Type<A | null, unknown, unknown>(
    `${c.name} | null`,
    (u): u is A | null => u === null || c.is(u),
    (u, ctx) => (u === undefined || u === null ? t.success(null) : c.validate(u, ctx)),
    (a) => (a === null ? null : c.encode(a)),
  );
export const oneOf = <T extends string>(values: ReadonlyArray<T>) =>
  t.keyof(Object.fromEntries(values.map((v) => [v, null])) as Record<T, null>);
