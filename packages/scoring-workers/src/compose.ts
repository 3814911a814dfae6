// Puts a process's scoring together from its ports: the runners of each kind of version, the job
// use cases and the workers' loop. The server and the evaluator app each call this with their own
// container's ports and their own JudgeModel adapter.
import { DEFAULT_RETRY_POLICY } from '@tracelight/domain';
import type { Clock, IntegrationRepository, JudgeModel, LogRecordRepository, ScorerVersionRepository, ScoringQueue, SecretSealer } from '@tracelight/ports';
import {
  CODE_NOT_RUN,
  GatewayLookup,
  type JobReport,
  type JudgeObserver,
  LUNA_NOT_RUN,
  LlmJudgeRunner,
  type ScorerRunners,
  type ScorerUseCases,
  ScoringJobs,
  notComputedRunner,
} from '@tracelight/use-cases';
import { type ScoringLog, ScoringWorkerPool } from './scoring-worker-pool';

export interface ScoringPorts {
  readonly queue: ScoringQueue;
  readonly records: LogRecordRepository;
  readonly scorers: ScorerUseCases;
  readonly versions: ScorerVersionRepository;
  readonly integrations: IntegrationRepository;
  readonly sealer: SecretSealer;
  readonly clock: Clock;
  readonly judge: JudgeModel;
}

export interface ScoringSettings {
  readonly scoringWorkers: number;
  readonly scoringLeaseMs: number;
  readonly scoringPollMs: number;
  readonly scoringMaxAttempts: number;
  readonly scoringRetryBaseMs: number;
  /** How often a setup error is logged per owner (ScoringWorkerOptions.setupWarnEveryMs); tests shorten it. */
  readonly setupWarnEveryMs?: number;
}

export interface ScoringObservers {
  readonly judge?: JudgeObserver;
  readonly finished?: (report: JobReport) => void;
}


/**
 * `runners` replaces the runner of a kind: the code kind's, once code scorers run in a sandbox (a
 * CodeSandbox port's runner), slots in here beside the judge.
 */
export const composeScoring = (
  ports: ScoringPorts,
  settings: ScoringSettings,
  owner: string,
  log: ScoringLog,
  observers: ScoringObservers = {},
  runnersOf: Partial<ScorerRunners> = {},
) => {
  const runners: ScorerRunners = {
    llm: new LlmJudgeRunner({
      judge: ports.judge,
      gateways: new GatewayLookup({ integrations: ports.integrations, sealer: ports.sealer }),
      elapsedMs: () => ports.clock.elapsedMs(),
      ...(observers.judge !== undefined ? { observer: observers.judge } : {}),
    }),
    code: notComputedRunner(CODE_NOT_RUN),
    luna: notComputedRunner(LUNA_NOT_RUN),
    ...runnersOf,
  };
  const jobs = new ScoringJobs({
    queue: ports.queue,
    records: ports.records,
    scorers: ports.scorers,
    versions: ports.versions,
    runners,
    clock: ports.clock,
    random: Math.random,
    retry: { ...DEFAULT_RETRY_POLICY, maxAttempts: settings.scoringMaxAttempts, baseDelayMs: settings.scoringRetryBaseMs },
  });
  const pool = new ScoringWorkerPool(
    jobs,
    {
      concurrency: settings.scoringWorkers,
      leaseMs: settings.scoringLeaseMs,
      pollMs: settings.scoringPollMs,
      owner,
      ...(settings.setupWarnEveryMs !== undefined ? { setupWarnEveryMs: settings.setupWarnEveryMs } : {}),
    },
    log,
    observers.finished,
  );
  return { jobs, pool, runners };
};
