// The server's scoring workers: the judge model over users' gateways, the workers' loop, and what
// /metrics says of them. Off the request thread: a judge call is awaited I/O, and each outcome one write.
import type { HttpMetrics } from '@tracelight/http-koa';
import { OpenAiJudgeModel } from '@tracelight/openai-gateway';
import { Clock, CodeSandbox, IntegrationRepository, LogRecordRepository, ScorerVersionRepository, ScoringQueue, SecretSealer } from '@tracelight/ports';
import { type ScoringLog, type ScoringSettings, type ScoringWorkerPool, composeScoring } from '@tracelight/scoring-workers';
import { CodeScorerRunner, ScorerUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import type { Container } from 'inversify';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';

export interface JudgeSettings {
  readonly judgeTimeoutMs: number;
  readonly gatewayConcurrency: number;
  readonly gatewayAllowedNetworks: ReadonlyArray<string>;
}

/** This process's name on the leases it takes: which host and process held a job, for an operator reading the jobs. */
export const leaseOwner = (): string => `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

/** `/metrics` reports the queue's depth whether or not this process scores. */
export const watchScoringQueue = (container: Container, metrics: HttpMetrics): void => {
  const queue = container.get<ScoringQueue>(ScoringQueue);
  metrics.scoring.watchQueue(async () => {
    const depth = await queue.depth()();
    return E.isRight(depth) ? depth.right : undefined;
  });
};

/** The workers, built (not started) from the container's ports; undefined when this process scores nothing. */
export const scoringWorkers = (container: Container, settings: ScoringSettings & JudgeSettings, log: ScoringLog, metrics: HttpMetrics): ScoringWorkerPool | undefined => {
  if (settings.scoringWorkers <= 0) return undefined;
  const judge = new OpenAiJudgeModel({ timeoutMs: settings.judgeTimeoutMs, concurrencyPerGateway: settings.gatewayConcurrency, allowedNetworks: settings.gatewayAllowedNetworks });
  metrics.watch('judge_calls', () => judge.held());
  const { pool } = composeScoring(
    {
      queue: container.get(ScoringQueue),
      records: container.get(LogRecordRepository),
      scorers: container.get(ScorerUseCases),
      versions: container.get(ScorerVersionRepository),
      integrations: container.get(IntegrationRepository),
      sealer: container.get(SecretSealer),
      clock: container.get(Clock),
      judge,
    },
    settings,
    leaseOwner(),
    log,
    metrics.scoring.observers(),
    container.isBound(CodeSandbox) ? { code: new CodeScorerRunner({ sandbox: container.get<CodeSandbox>(CodeSandbox) }) } : {},
  );
  return pool;
};
