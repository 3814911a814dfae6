// Small TaskEither helpers shared by the use cases.
import { type DomainError, forbidden, notFound } from '@tracelight/domain';
import type { ExpiringCache } from './expiring-cache';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';

export type UseCase<A> = TE.TaskEither<DomainError, A>;

// TE.flatMap, TE.tap and TE.filterOrElse with the same meaning, minus fp-ts's `dual` dispatch (which
// copies `arguments` and spreads it again on every call): every request runs a handful of these, and
// in the server the copies were the largest fp-ts cost. One await per step, and a throw inside a step
// rejects the task, as with fp-ts.

/** Runs `f` on the value, or passes the error on. */
export const flatMap =
  <A, E2, B>(f: (a: A) => TE.TaskEither<E2, B>) =>
  <E1>(ma: TE.TaskEither<E1, A>): TE.TaskEither<E1 | E2, B> =>
  async () => {
    const e = await ma();
    return E.isLeft(e) ? e : f(e.right)();
  };

/** Runs `f` for its effect (or its error), keeping the value. */
export const tap =
  <A, E2, B>(f: (a: A) => TE.TaskEither<E2, B>) =>
  <E1>(ma: TE.TaskEither<E1, A>): TE.TaskEither<E1 | E2, A> =>
  async () => {
    const e = await ma();
    if (E.isLeft(e)) return e;
    const done = await f(e.right)();
    return E.isLeft(done) ? done : e;
  };

/** Keeps the value when the predicate holds, else fails with `onFalse(value)`. */
export function filterOrElse<A, B extends A, E>(
  refinement: (a: A) => a is B,
  onFalse: (a: A) => E,
): (ma: TE.TaskEither<E, A>) => TE.TaskEither<E, B>;
export function filterOrElse<A, E>(predicate: (a: A) => boolean, onFalse: (a: A) => E): (ma: TE.TaskEither<E, A>) => TE.TaskEither<E, A>;
export function filterOrElse<A, E>(predicate: (a: A) => boolean, onFalse: (a: A) => E) {
  return (ma: TE.TaskEither<E, A>): TE.TaskEither<E, A> =>
    async () => {
      const e = await ma();
      return E.isLeft(e) || predicate(e.right) ? e : E.left(onFalse(e.right));
    };
}

/** Turns a repository's Option into NotFound. */
export const orNotFound =
  (entity: string, id: string) =>
  <A>(te: UseCase<O.Option<A>>): UseCase<A> =>
    pipe(te, flatMap(TE.fromOption(() => notFound(entity, id))));

/** Fails with NotFound unless the predicate holds: callers never learn that another user's record exists. */
export const visibleOr =
  <A>(entity: string, id: string, visible: (a: A) => boolean) =>
  (te: UseCase<A>): UseCase<A> =>
    pipe(te, filterOrElse(visible, () => notFound(entity, id)));

/** Runs a promise-returning port call (credential ports) as a TaskEither that never rejects. */
export const fromPromise = <A>(f: () => Promise<A>): UseCase<A> =>
  TE.tryCatch(f, (e) => ({ _tag: 'Unavailable', message: e instanceof Error ? e.message : String(e) }) as const);

/**
 * Reads through `cache` a record that never changes once stored (projects, runs and scorers: their
 * ports have no update). What was found is remembered until the cache's TTL from `nowMs`; what was
 * not is asked again next time, since it may exist by then. Records that can be deleted (projects
 * with their runs) need a finite TTL, as a deletion by another process is not seen here before it
 * runs out, and the deleting use case drops them from its own cache. A port that gains an update must
 * stop using this for its records.
 */
export const readThrough = <A>(cache: ExpiringCache<A>, key: string, nowMs: number, read: () => UseCase<O.Option<A>>): UseCase<O.Option<A>> => {
  const known = cache.get(key, nowMs);
  if (known !== undefined) return TE.right(O.some(known));
  return pipe(
    read(),
    TE.map((found) => {
      if (O.isSome(found)) cache.set(key, found.value, nowMs);
      return found;
    }),
  );
};

/** The answer to a read-only user's attempt to change data (see mayChangeData). */
export const readOnly = <A>(): UseCase<A> => TE.left(forbidden('A read-only user cannot change data'));
