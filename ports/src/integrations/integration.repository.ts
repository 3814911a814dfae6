import type { Integration, IntegrationId, Provider, UserId } from '@tracelight/domain';
import type { Option } from 'fp-ts/Option';
import type { Result } from '../system/result';

export interface IntegrationRepository {
  findByOwner(owner: UserId, provider: Provider): Result<Option<Integration>>;
  /**
   * Atomically inserts the integration, or, when the owner already has one for that provider,
   * updates its settings, secret and `updatedAt` while keeping the stored `id` and `createdAt`.
   * Returns what is stored afterwards. Two concurrent first writes still yield one record.
   */
  upsert(integration: Integration): Result<Integration>;
  /**
   * Every owner's integrations in order of id, at most `limit` of them, those after `after` (from the
   * first without it): a pass over all of them, as sealing their secrets again under a new master key
   * makes.
   */
  page(after: IntegrationId | undefined, limit: number): Result<ReadonlyArray<Integration>>;
  /**
   * Stores `to` as the sealed secret of integration `id` only if it is still `from` (a compare-and-set:
   * a secret its owner set meanwhile is kept), leaving `updatedAt` as it was: the owner changed
   * nothing. True when it was replaced.
   */
  replaceSecret(id: IntegrationId, from: string, to: string): Result<boolean>;
}
export const IntegrationRepository = Symbol.for('tracelight.IntegrationRepository');
