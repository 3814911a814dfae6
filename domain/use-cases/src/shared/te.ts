// Small TaskEither helpers shared by the use cases.
import { type DomainError, notFound } from '@tracelight/domain';
import type { ExpiringCache } from './expiring-cache';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';

export type UseCase<A> = TE.TaskEither<DomainError, A>;

/** Turns a repository's Option into NotFound. */
export const orNotFound =
  (entity: string, id: string) =>
  <A>(te: UseCase<O.Option<A>>): UseCase<A> =>
    pipe(te, TE.flatMap(TE.fromOption(() => notFound(entity, id))));

/** Fails with NotFound unless the predicate holds: callers never learn that another user's record exists. */
export const visibleOr =
  <A>(entity: string, id: string, visible: (a: A) => boolean) =>
  (te: UseCase<A>): UseCase<A> =>
    pipe(te, TE.filterOrElse(visible, () => notFound(entity, id)));

/** Runs a promise-returning port call (credential ports) as a TaskEither that never rejects. */
export const fromPromise = <A>(f: () => Promise<A>): UseCase<A> =>
  TE.tryCatch(f, (e) => ({ _tag: 'Unavailable', message: e instanceof Error ? e.message : String(e) }) as const);

/**
 * Reads through `cache` a record that never changes once stored and is never deleted (projects, runs
 * and scorers: their ports have no update or delete). What was found is remembered; what was not is
 * asked again next time, since it may exist by then. A port that gains an update or a delete must
 * stop using this for its records.
 */
export const readThrough = <A>(cache: ExpiringCache<A>, key: string, read: () => UseCase<O.Option<A>>): UseCase<O.Option<A>> => {
  const known = cache.get(key, 0);
  if (known !== undefined) return TE.right(O.some(known));
  return pipe(
    read(),
    TE.map((found) => {
      if (O.isSome(found)) cache.set(key, found.value, 0);
      return found;
    }),
  );
};
