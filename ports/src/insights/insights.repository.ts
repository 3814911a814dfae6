import type { RunId, RunInsights } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface InsightsRepository {
  find(runId: RunId): Result<Option<RunInsights>>;
  /** Creates or replaces the run's settings whole. NotFound when the run does not exist (any more). */
  replace(settings: RunInsights): Result<RunInsights>;
}
export const InsightsRepository = Symbol.for('tracelight.InsightsRepository');
