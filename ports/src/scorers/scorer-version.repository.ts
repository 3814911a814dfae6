import type { FoundPage, PageRequest, ScorerId, ScorerVersion, ScorerVersionKind } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

/**
 * Versions are append-only: a new one is numbered above the highest, and none is changed or removed.
 * The use cases rely on it (a settled page of versions is cached for good); keep it that way, or drop
 * that cache.
 */
export interface ScorerVersionRepository {
  /**
   * Stores a new version numbered one above the scorer's highest (1 for the first). The number is
   * allocated atomically with the insert: concurrent calls get distinct consecutive numbers, and a
   * version that is not stored takes none (numbers have no gap). `build` is called once; the version
   * is stored, and answered, with the allocated number as its `version`, which an adapter that learns
   * the number only as it stores the version sets itself (build is then given 0): a version names
   * its number in `version` alone.
   */
  appendNext(scorerId: ScorerId, build: (version: number) => ScorerVersion): Result<ScorerVersion>;
  /**
   * Versions ordered by `version` ascending from `startingToken`: at most `limit`, and fewer when they
   * reach `maxBytes` of stored size (the page ends after the version that reaches it, and always holds
   * one), with whether more follow.
   */
  listFrom(scorerId: ScorerId, page: PageRequest, maxBytes: number): Result<FoundPage<ScorerVersion>>;
  /** The highest version, optionally only among versions of one kind. */
  findLatest(scorerId: ScorerId, kind?: ScorerVersionKind): Result<Option<ScorerVersion>>;
  /** The highest version of each of these scorers that has one (a scorer without versions is left out). */
  findLatestOfEach(scorerIds: ReadonlyArray<ScorerId>): Result<ReadonlyMap<ScorerId, ScorerVersion>>;
  findByNumber(scorerId: ScorerId, version: number): Result<Option<ScorerVersion>>;
}
export const ScorerVersionRepository = Symbol.for('tracelight.ScorerVersionRepository');
