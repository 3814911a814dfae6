// The column catalogue of a run: the standard columns, then one metric column per enabled scorer;
// a column is empty until some record of the run has a value for it (presence kept at write time).
import {
  type ColumnDescriptor,
  type Principal,
  type ProjectId,
  type RunId,
  type RunKind,
  metricColumn,
  STANDARD_COLUMNS,
} from '@tracelight/domain';
import type { LogRecordRepository } from '@tracelight/ports';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type { ProjectUseCases } from '../projects-runs/project.use-cases';
import type { ScorerUseCases } from '../scorers/scorer.use-cases';
import { type UseCase, flatMap } from '../shared/te';

export interface ColumnDeps {
  readonly projects: ProjectUseCases;
  readonly scorers: ScorerUseCases;
  readonly records: LogRecordRepository;
}

export class ColumnUseCases {
  constructor(private readonly deps: ColumnDeps) {}

  /** The run must be of the named kind in that project, and the caller's. */
  availableColumns(
    principal: Principal,
    projectId: ProjectId,
    kind: RunKind,
    runId: RunId,
  ): UseCase<ReadonlyArray<ColumnDescriptor>> {
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId, kind),
      flatMap(() =>
        pipe(
          TE.Do,
          TE.apS('enabled', this.deps.scorers.enabledOnRun(runId)),
          TE.apS('present', this.deps.records.presentColumns(runId)),
        ),
      ),
      TE.map(({ enabled, present }) =>
        [...STANDARD_COLUMNS, ...enabled.map(({ scorer, outputType, version }) => metricColumn(scorer, outputType, version))].map((c) => ({
          ...c,
          isEmpty: !present.has(c.id),
        })),
      ),
    );
  }
}
