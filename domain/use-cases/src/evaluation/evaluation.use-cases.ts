// Evaluation as a run's owner drives it: a recompute queues jobs for records already stored, and the
// run's scoring status says how far its scorers have got.
import {
  type JobCounts,
  type NodeType,
  type Principal,
  type ProjectId,
  type RunId,
  type Scorer,
  type ScorerId,
  type TokenUsage,
  invalid,
  isReadyToScore,
  jobsFor,
  mayChangeData,
  scoreableNodeTypes,
  zeroCounts,
} from '@tracelight/domain';
import type { Clock, LogRecordRepository, RecordKeyQuery, ScoringQueue } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import type { ProjectUseCases } from '../projects-runs/project.use-cases';
import type { ScorerUseCases } from '../scorers/scorer.use-cases';
import { type UseCase, flatMap, readOnly } from '../shared/te';

export interface EvaluationDeps {
  readonly projects: ProjectUseCases;
  readonly scorers: ScorerUseCases;
  readonly records: LogRecordRepository;
  readonly queue: ScoringQueue;
  readonly clock: Clock;
  /** Told when a recompute queued jobs, so that idle workers of this process look at once. */
  readonly onJobsQueued?: () => void;
  /** Records read (and jobs queued) per step of a recompute (default 1,000). */
  readonly recomputeStep?: number;
}

export interface RecomputeRequest {
  /** The scorers to recompute, each one of the run's; absent: every scorer of the run's settings. */
  readonly scorerIds?: ReadonlyArray<ScorerId>;
  readonly createdAfter?: Date;
  readonly createdBefore?: Date;
}

/** One scorer version's jobs on a run. */
export interface ScorerStatus {
  readonly scorer: Scorer;
  readonly version: number;
  /** Whether the run scores with this version now (its settings' pin, else the latest). */
  readonly inUse: boolean;
  /** The settings' sample rate, for a scorer of the run's settings. */
  readonly sampleRate: number | null;
  readonly counts: JobCounts['counts'];
  readonly tokens: TokenUsage;
  readonly lastError: JobCounts['lastError'];
}

export interface RunScoringStatus {
  readonly runId: RunId;
  readonly scorers: ReadonlyArray<ScorerStatus>;
}

export class EvaluationUseCases {
  constructor(private readonly deps: EvaluationDeps) {}

  /**
   * Queues the jobs the run's plan gives its stored records (of the chosen scorers, created within the
   * range), a step at a time: records without a job get one, and jobs whose outcome may change once its
   * cause is mended (an error, a failure) are queued again; a success stands. How many were queued.
   */
  recompute(principal: Principal, projectId: ProjectId, runId: RunId, request: RecomputeRequest): UseCase<{ readonly queued: number }> {
    if (!mayChangeData(principal)) return readOnly();
    const { createdAfter, createdBefore } = request;
    if (createdAfter !== undefined && createdBefore !== undefined && createdBefore.getTime() <= createdAfter.getTime())
      return TE.left(invalid(['created_before'], 'created_before must be later than created_after', createdBefore.toISOString()));
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId),
      flatMap(() => this.deps.scorers.scoringPlan(runId, true)),
      flatMap((plan) => {
        const chosen = request.scorerIds;
        if (chosen === undefined) return TE.right(plan);
        for (const [i, id] of chosen.entries())
          if (!plan.some((e) => e.scorer.id === id)) return TE.left(invalid(['scorer_ids', i], `scorer ${id} is not one of the run's scorers (or has no version)`, id));
        return TE.right(plan.filter((e) => chosen.includes(e.scorer.id)));
      }),
      flatMap((plan) => async () => {
        if (plan.length === 0) return E.right({ queued: 0 });
        const types = [...new Set(plan.flatMap((e) => scoreableNodeTypes(e.version)))] as NodeType[];
        const step = this.deps.recomputeStep ?? 1_000;
        let queued = 0;
        let after: RecordKeyQuery['after'];
        for (;;) {
          const keys = await this.deps.records.listKeys(runId, {
            types,
            ...(createdAfter !== undefined ? { createdAfter } : {}),
            ...(createdBefore !== undefined ? { createdBefore } : {}),
            ...(after !== undefined ? { after } : {}),
            limit: step,
          })();
          if (E.isLeft(keys)) return keys;
          // A record not complete yet is left to the PATCH that completes it (scoringOnWrite), as at ingest.
          const jobs = jobsFor(keys.right.filter(isReadyToScore), plan);
          if (jobs.length > 0) {
            const done = await this.deps.queue.requeue(jobs, this.deps.clock.now())();
            if (E.isLeft(done)) return done;
            queued += done.right;
          }
          const last = keys.right[keys.right.length - 1];
          if (keys.right.length < step || last === undefined) break;
          after = { createdAt: last.createdAt, id: last.id };
        }
        if (queued > 0) this.deps.onJobsQueued?.();
        return E.right({ queued });
      }),
    );
  }

  /**
   * The run's scorers with the jobs of each version they have (the version in use always, with zeros
   * before any job): by state, their tokens, and the latest failure's message.
   */
  status(principal: Principal, projectId: ProjectId, runId: RunId): UseCase<RunScoringStatus> {
    return pipe(
      this.deps.projects.getRun(principal, projectId, runId),
      flatMap(() => this.deps.scorers.scoringPlan(runId, true)),
      flatMap((plan) =>
        pipe(
          this.deps.queue.counts(runId),
          flatMap((counts) => {
            const ids = [...new Set([...plan.map((e) => e.scorer.id), ...counts.map((c) => c.scorerId)])];
            return pipe(
              this.deps.scorers.scorersByIds(ids),
              TE.map((scorers): RunScoringStatus => {
                const byId = new Map(scorers.map((s) => [s.id, s]));
                const entries: ScorerStatus[] = [];
                const seen = new Set<string>();
                const add = (scorerId: ScorerId, version: number, inUse: boolean, sampleRate: number | null) => {
                  const scorer = byId.get(scorerId);
                  const key = `${scorerId}@${version}`;
                  if (scorer === undefined || seen.has(key)) return;
                  seen.add(key);
                  const c = counts.find((x) => x.scorerId === scorerId && x.version === version);
                  entries.push({ scorer, version, inUse, sampleRate, counts: c?.counts ?? zeroCounts(), tokens: c?.tokens ?? { prompt: 0, completion: 0 }, lastError: c?.lastError ?? null });
                };
                // The settings' order, each scorer's version in use first, then its other versions with jobs.
                for (const e of plan) {
                  add(e.scorer.id, e.version.version, true, e.sampleRate);
                  for (const c of counts.filter((x) => x.scorerId === e.scorer.id).sort((a, b) => b.version - a.version)) add(c.scorerId, c.version, false, e.sampleRate);
                }
                for (const c of counts) add(c.scorerId, c.version, false, null);
                return { runId, scorers: entries };
              }),
            );
          }),
        ),
      ),
    );
  }
}
