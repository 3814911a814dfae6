// Which scorers run on a run: the source of a run's metric columns.
import type { RunId, ScorerId } from '../shared/ids';

export interface ScorerSelection {
  readonly scorerId: ScorerId;
  /** A pinned version number, or null to follow the latest. */
  readonly version: number | null;
  /**
   * The share of the run's records the scorer scores, 0 to 1 (isSampled chooses which); absent: 1,
   * every record (settings stored before sampling existed read so).
   */
  readonly sampleRate?: number;
}

export interface RunScorerSettings {
  readonly runId: RunId;
  readonly scorers: ReadonlyArray<ScorerSelection>;
  readonly updatedAt: Date;
}
