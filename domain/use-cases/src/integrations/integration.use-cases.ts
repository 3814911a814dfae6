// Provider integrations of a user. One gateway integration per user; its token is sealed at rest.
import {
  type GatewayIntegrationInput,
  type Integration,
  type IntegrationId,
  type Principal,
  type Provider,
  type UserId,
  asId,
  formerV7Id,
  invalid,
  notFound,
  GATEWAY_TOKEN,
  MAX_GATEWAY_TOKEN_LENGTH,
  USE_CASE,
  mayChangeData,
} from '@tracelight/domain';
import type { Clock, IdGenerator, IntegrationRepository, SecretSealer } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { type UseCase, flatMap, readOnly } from '../shared/te';

export interface IntegrationDeps {
  readonly integrations: IntegrationRepository;
  readonly sealer: SecretSealer;
  readonly clock: Clock;
  readonly ids: IdGenerator;
}

/** An absolute http(s) URL that is a base URL: judges call `{endpoint}/chat/completions`, which a query or fragment would change. */
const isBaseHttpUrl = (s: string): boolean => {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !/[?#]/.test(s);
  } catch {
    return false;
  }
};

/** The domain's own invariants, whatever edge the input came through. */
export const validateGateway = (input: GatewayIntegrationInput): UseCase<GatewayIntegrationInput> => {
  // The token is never echoed, even refused.
  if (input.token.length > MAX_GATEWAY_TOKEN_LENGTH || !GATEWAY_TOKEN.test(input.token))
    return TE.left(invalid(['token'], `token must be 1 to ${MAX_GATEWAY_TOKEN_LENGTH} visible ASCII characters (spaces only between them), as a header carries it`));
  if (!isBaseHttpUrl(input.endpoint)) return TE.left(invalid(['endpoint'], 'endpoint must be an http(s) URL without a query (?) or fragment (#)', input.endpoint));
  if (!USE_CASE.test(input.useCase))
    return TE.left(invalid(['use_case'], 'use_case must be an upper-case token', input.useCase));
  return TE.right(input);
};

/** What a user's secret for a provider is sealed under (see SecretSealer). */
export const secretContext = (provider: Provider, userId: UserId): string => `integration/${provider}/${userId}`;

/** What a user's gateway token is sealed under. */
export const gatewaySecretContext = (userId: UserId): string => secretContext('gateway', userId);

/** What a pass sealing the stored secrets anew found. */
export interface ResealReport {
  /** Sealed anew under the current key. */
  readonly resealed: number;
  /** Already sealed under the current key, as it seals now. */
  readonly current: number;
  /** Set again by their owners during the pass: theirs is kept. */
  readonly changedMeanwhile: number;
  /** Neither key opens them (sealed under a key no longer given): their owners must set them again. */
  readonly unopenable: ReadonlyArray<{ readonly id: IntegrationId; readonly owner: UserId; readonly provider: Provider }>;
}

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

  /** The caller's gateway integration, its settings only (the sealed token never leaves the server); NotFound when none is set. */
  getGateway(principal: Principal): UseCase<Integration> {
    return pipe(
      this.deps.integrations.findByOwner(principal.userId, 'gateway'),
      flatMap(TE.fromOption(() => notFound('gateway integration', principal.userId))),
    );
  }

  /**
   * Every stored secret, of every user, sealed again under the current master key where an earlier key
   * (TRACELIGHT_PREVIOUS_SECRET_KEY, during a rotation) or an earlier format sealed it: once done, the
   * previous key can be dropped without a secret lost. A page of `pageSize` at a time; each secret is
   * replaced only if it is still the one read (a secret its owner set meanwhile is kept). Run again, it
   * finds them all current.
   */
  /**
   * A secret sealed for its owner's former id (a version-7 id an earlier build made, re-keyed to version 4
   * by the storage migration: the context names the owner), sealed anew for the owner's id.
   */
  private underFormerId(sealed: string, provider: Provider, owner: UserId): E.Either<string, O.Option<string>> {
    const former = formerV7Id(owner);
    if (former === undefined) return E.left('sealed secret failed authentication');
    return E.map((plain: string) => O.some(this.deps.sealer.seal(plain, secretContext(provider, owner))))(
      this.deps.sealer.open(sealed, secretContext(provider, asId<UserId>(former))),
    );
  }

  resealSecrets(pageSize = 100): UseCase<ResealReport> {
    // 0 would read nothing on SQLite (LIMIT 0) and everything at once on MongoDB (limit(0)).
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) return TE.left(invalid(['pageSize'], 'pageSize must be a whole number of at least 1', pageSize));
    return async () => {
      const report = { resealed: 0, current: 0, changedMeanwhile: 0, unopenable: [] as Array<ResealReport['unopenable'][number]> };
      let after: IntegrationId | undefined;
      for (;;) {
        const page = await this.deps.integrations.page(after, pageSize)();
        if (E.isLeft(page)) return page;
        for (const integration of page.right) {
          const context = secretContext(integration.provider, integration.createdBy);
          const resealed = E.orElse(() => this.underFormerId(integration.sealedSecret, integration.provider, integration.createdBy))(
            this.deps.sealer.reseal(integration.sealedSecret, context),
          );
          if (E.isLeft(resealed)) report.unopenable.push({ id: integration.id, owner: integration.createdBy, provider: integration.provider });
          else if (O.isNone(resealed.right)) report.current += 1;
          else {
            const replaced = await this.deps.integrations.replaceSecret(integration.id, integration.sealedSecret, resealed.right.value)();
            if (E.isLeft(replaced)) return replaced;
            if (replaced.right) report.resealed += 1;
            else report.changedMeanwhile += 1;
          }
        }
        // A short page is the last; pageSize ≥ 1, so a full one has a last item to go on after.
        if (page.right.length < pageSize) return E.right(report);
        after = page.right[pageSize - 1]!.id;
      }
    };
  }
}
