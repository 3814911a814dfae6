// Scorers are evaluation metrics; each has integer-numbered versions.
import type { ScorerId, UserId } from '../shared/ids';

export const SCORER_TYPES = ['llm', 'code', 'luna', 'preset'] as const;
export type ScorerType = (typeof SCORER_TYPES)[number];

export interface ColumnThreshold {
  readonly buckets: ReadonlyArray<number>;
  readonly displayValueLevels: ReadonlyArray<string>;
  readonly inverted: boolean;
}

/** How the scorer's metric column is presented: all optional, the catalogue falls back to sensible values. */
export interface ScorerDisplay {
  readonly label?: string;
  readonly groupLabel?: string;
  readonly dataUnit?: string;
  readonly threshold?: ColumnThreshold;
}

/** Defaults applied to new versions when a version request leaves a field out. */
export interface ScorerDefaults {
  readonly modelName?: string;
  readonly numJudges?: number;
  readonly cotEnabled?: boolean;
  readonly outputType?: string;
  readonly inputType?: string;
  readonly scoreableNodeTypes?: ReadonlyArray<string>;
}

export interface Scorer {
  readonly id: ScorerId;
  readonly name: string;
  readonly scorerType: ScorerType;
  readonly description: string;
  readonly tags: ReadonlyArray<string>;
  readonly defaults: ScorerDefaults;
  readonly display: ScorerDisplay;
  readonly createdBy: UserId;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A threshold must have one more display level than buckets, and finite buckets in ascending order (an infinity would be stored as null). */
export const isValidThreshold = (t: ColumnThreshold): boolean =>
  t.displayValueLevels.length === t.buckets.length + 1 && t.buckets.every((b, i, a) => Number.isFinite(b) && (i === 0 || a[i - 1]! <= b));
