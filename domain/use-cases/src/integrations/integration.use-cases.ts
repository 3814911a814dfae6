// Provider integrations of a user. One gateway integration per user; its token is sealed at rest.
import {
  type GatewayIntegrationInput,
  type Integration,
  type IntegrationId,
  type Principal,
  type UserId,
  asId,
  invalid,
  USE_CASE,
  mayChangeData,
} from '@tracelight/domain';
import type { Clock, IdGenerator, IntegrationRepository, SecretSealer } from '@tracelight/ports';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { type UseCase, flatMap, readOnly } from '../shared/te';

export interface IntegrationDeps {
  readonly integrations: IntegrationRepository;
  readonly sealer: SecretSealer;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

const isHttpUrl = (s: string): boolean => {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
};

/** The domain's own invariants, whatever edge the input came through. */
export const validateGateway = (input: GatewayIntegrationInput): UseCase<GatewayIntegrationInput> => {
  if (input.token.length === 0) return TE.left(invalid(['token'], 'token must not be empty'));
  if (!isHttpUrl(input.endpoint)) return TE.left(invalid(['endpoint'], 'endpoint must be an http(s) URL', input.endpoint));
  if (!USE_CASE.test(input.useCase))
    return TE.left(invalid(['use_case'], 'use_case must be an upper-case token', input.useCase));
  return TE.right(input);
};

/** What a user's gateway token is sealed under (see SecretSealer). */
export const gatewaySecretContext = (userId: UserId): string => `integration/gateway/${userId}`;

export class IntegrationUseCases {
  constructor(private readonly deps: IntegrationDeps) {}

  /** The first call creates the integration; later calls update the same one (same id and created_at). */
  upsertGateway(principal: Principal, input: GatewayIntegrationInput): UseCase<Integration> {
    if (!mayChangeData(principal)) return readOnly();
    return pipe(
      validateGateway(input),
      flatMap((valid) => {
        const now = this.deps.clock.now();
        return this.deps.integrations.upsert({
          id: asId<IntegrationId>(this.deps.ids.next()),
          provider: 'gateway',
          name: 'gateway',
          createdBy: principal.userId,
          createdAt: now,
          updatedAt: now,
          settings: { endpoint: valid.endpoint, use_case: valid.useCase },
          // Bound to its owner: a sealed token copied to another user's row does not open there.
          sealedSecret: this.deps.sealer.seal(valid.token, gatewaySecretContext(principal.userId)),
          permissions: [],
          isSelected: false,
          isDisabled: false,
        });
      }),
    );
  }
}
