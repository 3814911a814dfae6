import type { RunId, RunScorerSettings } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface RunScorerSettingsRepository {
  find(runId: RunId): Result<Option<RunScorerSettings>>;
  /** Creates or replaces the run's scorer selection whole. NotFound when the run does not exist (any more). */
  replace(settings: RunScorerSettings): Result<RunScorerSettings>;
}
export const RunScorerSettingsRepository = Symbol.for('tracelight.RunScorerSettingsRepository');
