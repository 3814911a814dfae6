// What scores one record with one scorer version: a runner per kind of version (an LLM judge, a code
// sandbox), all answering alike, so the job's life around it (claims, retries, storing the
// outcome once) is written once.
import type { ClaimedJob, LogRecord, MetricInfo, Scorer, ScorerVersion, ScorerVersionKind, TokenUsage } from '@tracelight/domain';

export interface ScoringContext {
  readonly job: ClaimedJob;
  readonly record: LogRecord;
  readonly scorer: Scorer;
  readonly version: ScorerVersion;
}

/**
 * What a runner made of a record: a success (the record's metric entry), an outcome that ends the job
 * with a message (`error`: the scorer cannot run as set up; `failed`: it ran and gave nothing usable;
 * `not_computed`: this kind is not run here), or a `retry` (a provider's transient failure, an answer
 * that did not parse), which the job's retry policy turns into a later attempt or, once spent, `failed`.
 */
export type RunnerVerdict =
  | { readonly kind: 'success'; readonly info: MetricInfo; readonly tokens: TokenUsage }
  | { readonly kind: 'outcome'; readonly state: 'error' | 'failed' | 'not_computed'; readonly message: string; readonly tokens: TokenUsage }
  | { readonly kind: 'retry'; readonly message: string; readonly retryAfterMs?: number; readonly tokens: TokenUsage };

export interface ScorerRunner {
  /** Never rejects: every failure is a verdict. */
  score(context: ScoringContext): Promise<RunnerVerdict>;
}

/** The runner of each kind of version. */
export type ScorerRunners = Readonly<Record<ScorerVersionKind, ScorerRunner>>;

/** A kind of version not run here: its jobs end `not_computed`, saying why (never dropped). */
export const notComputedRunner = (message: string): ScorerRunner => ({
  score: () => Promise.resolve({ kind: 'outcome', state: 'not_computed', message, tokens: { prompt: 0, completion: 0 } }),
});

export const CODE_NOT_RUN = 'code scorers are not run by this process (TRACELIGHT_SANDBOX_WORKERS is 0): the job is kept, and a recompute where they run scores it';
export const LUNA_NOT_RUN = 'fine-tuned (luna) scorers need the origin\'s model runtime, which this server does not have';
