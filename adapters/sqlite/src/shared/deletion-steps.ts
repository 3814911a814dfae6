// A project's deletion in steps. SQLite has one writer at a time: a deletion in one transaction holds
// every other write (every project's, every process's) for as long as it takes: seconds for every few
// hundred thousand records. The records, nearly all of what a project holds,
// go instead a step at a time, each a transaction of its own, other writes going between them; then
// one transaction removes what is left (the runs, their settings, records written meanwhile) and the
// project, as before.
import type { DomainError, ProjectDeletion } from '@tracelight/domain';
import type { Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';

/** Records removed a step: a transaction of some tens of milliseconds. */
export const DELETION_STEP_RECORDS = 1_000;

export interface DeletionSteps {
  /** Removes at most `limit` of the project's records (none when it is not the owner's); how many it removed. */
  readonly removeSome: (limit: number) => Result<number>;
  /** Removes the rest and the project, in one transaction; NotFound when it is not the owner's. */
  readonly removeRest: () => Result<ProjectDeletion>;
  /** Between steps, given how long the step took: what lets writers of other processes in. */
  readonly between?: (stepMs: number) => Promise<void>;
}

export const deleteInSteps =
  ({ removeSome, removeRest, between }: DeletionSteps): Result<ProjectDeletion> =>
  async (): Promise<E.Either<DomainError, ProjectDeletion>> => {
    let removed = 0;
    for (;;) {
      const began = performance.now();
      const step = await removeSome(DELETION_STEP_RECORDS)();
      if (E.isLeft(step)) return step;
      removed += step.right;
      // A short step found the last of them: records written under the project from here on go with the rest.
      if (step.right < DELETION_STEP_RECORDS) break;
      await between?.(performance.now() - began);
    }
    const rest = await removeRest()();
    return E.isLeft(rest) ? rest : E.right({ ...rest.right, records: rest.right.records + removed });
  };
