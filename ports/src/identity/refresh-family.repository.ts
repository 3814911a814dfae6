// The server-side state of refresh-token rotation: one family per sign-in, its current generation, and
// whether it was revoked. Rotation is a compare-and-set, so concurrent refreshes on any number of
// processes cannot both spend the same token.
import type { RefreshFamily, RefreshFamilyId } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface RefreshFamilyRepository {
  /** Conflict when the id is taken. */
  insert(family: RefreshFamily): Result<RefreshFamily>;
  findById(id: RefreshFamilyId): Result<Option<RefreshFamily>>;
  /**
   * Spends generation `from`: the family's generation becomes `from + 1` and its `rotatedAt` `at`, only
   * if it is still at `from` and not revoked, atomically. Some(the family after) when this call did it;
   * none when another call did first, or the family is revoked or gone (read it again to know which).
   */
  rotate(id: RefreshFamilyId, from: number, at: Date): Result<Option<RefreshFamily>>;
  /** Sets `revokedAt` (a family revoked already keeps its first time). Nothing for an unknown id. */
  revoke(id: RefreshFamilyId, at: Date): Result<void>;
  /** Removes at most `limit` families whose session ended before `before`; how many it removed. */
  removeEndedBefore(before: Date, limit: number): Result<number>;
}
export const RefreshFamilyRepository = Symbol.for('tracelight.RefreshFamilyRepository');
