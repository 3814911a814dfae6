// Run insights settings: read (default when never set) and replace whole.
import {
  type InsightsInput,
  type InsightsSettings,
  type Principal,
  type ProjectId,
  type RunId,
  type RunInsights,
  completeInsights,
  DEFAULT_INSIGHTS,
  mayChangeData,
} from '@tracelight/domain';
import type { Clock, InsightsRepository } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type { ProjectUseCases } from '../projects-runs/project.use-cases';
import { type UseCase, flatMap, readOnly } from '../shared/te';

export interface InsightsDeps {
  readonly projects: ProjectUseCases;
  readonly insights: InsightsRepository;
  readonly clock: Clock;
}

export interface RunInsightsView {
  readonly runId: RunId;
  readonly insights: InsightsSettings;
}

export class InsightsUseCases {
  constructor(private readonly deps: InsightsDeps) {}

  get(principal: Principal, projectId: ProjectId, runId: RunId): UseCase<RunInsightsView> {
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId),
      flatMap(() => this.deps.insights.find(runId)),
      TE.map(
        O.match(
          () => ({ runId, insights: DEFAULT_INSIGHTS }),
          (s) => ({ runId: s.runId, insights: s.insights }),
        ),
      ),
    );
  }

  /** Create or replace (never merge): what the request leaves out takes the spec's defaults. */
  replace(principal: Principal, projectId: ProjectId, runId: RunId, input: InsightsInput | null): UseCase<RunInsights> {
    if (!mayChangeData(principal)) return readOnly();
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId),
      flatMap(() =>
        this.deps.insights.replace({ runId, insights: completeInsights(input), updatedAt: this.deps.clock.now() }),
      ),
    );
  }
}
