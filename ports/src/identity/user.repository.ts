import type { User, UserId } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface UserRepository {
  /** Conflict when the (normalised) email is taken. */
  insert(user: User): Result<User>;
  findById(id: UserId): Result<Option<User>>;
  findByEmail(email: string): Result<Option<User>>;
  count(): Result<number>;
  /** Sets `sessionsValidFrom`: sessions begun before `from` are refused from then on. NotFound for an unknown id. */
  revokeSessions(id: UserId, from: Date): Result<void>;
  /**
   * Stores `to` as the user's password hash only if it is still `from` (a compare-and-set: a hash made
   * again at another cost by a concurrent sign-in, or any later change, is kept), `updatedAt` as it
   * was. True when it was replaced.
   */
  rehashPassword(id: UserId, from: string, to: string): Result<boolean>;
}
export const UserRepository = Symbol.for('tracelight.UserRepository');
