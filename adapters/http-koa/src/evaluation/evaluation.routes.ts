// A run's evaluation: recompute its metrics over records already stored, and its scoring status.
import { RecomputeMetricsRequest, RecomputeMetricsResponse, RunPath, RunScoringStatusResponse } from '@tracelight/api-schema';
import { type ProjectId, type RunId, type ScorerId, asId } from '@tracelight/domain';
import { EvaluationUseCases, type RunScoringStatus } from '@tracelight/use-cases';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';

const presentStatus = (s: RunScoringStatus) => ({
  run_id: s.runId,
  scorers: s.scorers.map((e) => ({
    scorer_id: e.scorer.id,
    scorer_name: e.scorer.name,
    version: e.version,
    in_use: e.inUse,
    sample_rate: e.sampleRate,
    jobs: {
      pending: e.counts.pending,
      computing: e.counts.computing,
      succeeded: e.counts.success,
      failed: e.counts.failed,
      error: e.counts.error,
      not_applicable: e.counts.not_applicable,
      not_computed: e.counts.not_computed,
    },
    last_error: e.lastError === null ? null : { message: e.lastError.message, at: e.lastError.at.toISOString() },
    tokens: { prompt: e.tokens.prompt, completion: e.tokens.completion },
  })),
});

@injectable()
export class EvaluationRoutes implements RouteGroup {
  constructor(@inject(EvaluationUseCases) private readonly evaluation: EvaluationUseCases) {}

  routes(): ReadonlyArray<Route> {
    const evaluation = this.evaluation;
    const ids = (p: { project_id: string; run_id: string }) => [asId<ProjectId>(p.project_id), asId<RunId>(p.run_id)] as const;
    return [
      route({
        method: 'post',
        path: '/projects/{project_id}/runs/{run_id}/metrics/recompute',
        summary: 'Queue scoring of the run\'s stored records',
        description:
          'Queues a scoring job for each stored record of the run (created within `created_after` to `created_before`, when given) that a chosen scorer\'s version in use scores and samples: `scorer_ids` (default: every scorer of the run\'s scorer settings). A record already scored by that version keeps its value; one whose job ended in `error`, `failed`, `not_applicable` or `not_computed` is queued again. Answers 202 with how many jobs were queued; the workers score them in the background (see `metrics/status`), after the records ingested meanwhile, and each owner\'s in turn with others\'. An LLM scorer whose owner has no gateway integration gets jobs for records without one only (its ended jobs would end the same way). One recompute of a scorer on a run at a time: 409 while the jobs of an earlier one are pending or computing.',
        conflict: 'A recompute of a chosen scorer on this run is still being scored (its jobs are pending or computing)',
        auth: 'required',
        params: RunPath,
        body: RecomputeMetricsRequest,
        response: RecomputeMetricsResponse,
        status: 202,
        handle: ({ principal, params, body }) => {
          const [projectId, runId] = ids(params);
          return pipe(
            evaluation.recompute(principal, projectId, runId, {
              ...(body.scorer_ids != null ? { scorerIds: body.scorer_ids.map((id) => asId<ScorerId>(id)) } : {}),
              ...(body.created_after != null ? { createdAfter: body.created_after } : {}),
              ...(body.created_before != null ? { createdBefore: body.created_before } : {}),
            }),
            TE.map(({ queued }) => ({ run_id: runId, queued })),
          );
        },
        present: (x) => x,
      }),
      route({
        method: 'get',
        path: '/projects/{project_id}/runs/{run_id}/metrics/status',
        summary: 'The run\'s scoring status, per scorer version',
        description:
          'For each scorer of the run (its version in use, then other versions with jobs): its jobs pending (a backoff included), computing, succeeded, failed, in error, not applicable and not computed; the latest failure\'s message; the tokens its judges used.',
        auth: 'required',
        params: RunPath,
        response: RunScoringStatusResponse,
        handle: ({ principal, params }) => evaluation.status(principal, ...ids(params)),
        present: presentStatus,
      }),
    ];
  }
}
