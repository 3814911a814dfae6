// Running a port call in a test: its Right, or its Left, failing the test otherwise.
import type { DomainError } from '@tracelight/domain';
import type { Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';

/** Runs a port call and returns its Right, failing the test on a Left. */
export const right = async <A>(r: Result<A>): Promise<A> => {
  const e = await r();
  if (E.isLeft(e)) throw new Error(`expected Right, got ${JSON.stringify(e.left)}`);
  return e.right;
};

export const left = async <A>(r: Result<A>): Promise<DomainError> => {
  const e = await r();
  if (E.isRight(e)) throw new Error(`expected Left, got ${JSON.stringify(e.right)}`);
  return e.left;
};
