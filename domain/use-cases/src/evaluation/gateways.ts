// The gateway a user's judges are called through: their gateway integration, its token opened for the
// call at hand only (it stays sealed at rest and is never kept opened).
import type { DomainError, Integration, UserId } from '@tracelight/domain';
import type { IntegrationRepository, JudgeGateway, SecretSealer } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import { gatewaySecretContext } from '../integrations/integration.use-cases';

/** Why no call can be made: the owner has no (enabled) gateway, or its token does not open here. */
export type NoGateway = { readonly reason: 'none' | 'unopenable' | 'unavailable'; readonly message: string };

export const NO_GATEWAY_MESSAGE = 'no gateway integration: set one with PUT /v2/integrations/gateway, then recompute';

/** An integration judges can be called through: enabled, with an endpoint. */
const usable = (integration: Integration): boolean => !integration.isDisabled && integration.settings['endpoint'] !== undefined;

/** Whether the owner has a gateway judges could be called through (its token is not opened). */
export const hasGateway = async (integrations: IntegrationRepository, owner: UserId): Promise<E.Either<DomainError, boolean>> => {
  const found = await integrations.findByOwner(owner, 'gateway')();
  return E.isLeft(found) ? found : E.right(O.isSome(found.right) && usable(found.right.value));
};

export class GatewayLookup {
  constructor(private readonly deps: { readonly integrations: IntegrationRepository; readonly sealer: SecretSealer }) {}

  async of(owner: UserId): Promise<E.Either<NoGateway, JudgeGateway>> {
    const found = await this.deps.integrations.findByOwner(owner, 'gateway')();
    if (E.isLeft(found)) return E.left({ reason: 'unavailable', message: `storage unavailable: ${found.left._tag}` });
    const option = found.right;
    if (O.isNone(option) || !usable(option.value)) return E.left({ reason: 'none', message: NO_GATEWAY_MESSAGE });
    const integration = option.value;
    const endpoint = integration.settings['endpoint'];
    if (endpoint === undefined) return E.left({ reason: 'none', message: NO_GATEWAY_MESSAGE });
    const token = this.deps.sealer.open(integration.sealedSecret, gatewaySecretContext(owner));
    // Sealed under a key this process does not hold (a rotation's previous key dropped too early): the
    // owner must set it again. The reason never holds the token.
    if (E.isLeft(token)) return E.left({ reason: 'unopenable', message: 'the gateway token cannot be opened with this server\'s secret key: set the gateway integration again' });
    return E.right({ endpoint, token: token.right, key: owner });
  }
}
