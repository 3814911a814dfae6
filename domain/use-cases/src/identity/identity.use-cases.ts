// Users, sign-in, API keys and the resolution of presented credentials into a Principal.
import {
  type AccessToken,
  type ApiKey,
  type ApiKeyId,
  type Principal,
  type PresentedCredentials,
  type RefreshFamily,
  type RefreshFamilyId,
  type Session,
  type TokenClaims,
  type User,
  type UserId,
  type UserRole,
  asId,
  conflict,
  forbidden,
  invalid,
  isApiKeyUsable,
  newUserProblem,
  normaliseEmail,
  unauthorized,
  mayCreateUser,
  mayManageCredentials,
  NEEDS_PASSWORD,
  judgeRefresh,
  SESSION_EXPIRED,
  REFRESH_RACED,
  SESSION_REVOKED_BY_REUSE,
} from '@tracelight/domain';
import type {
  ApiKeyMinter,
  ApiKeyRepository,
  Clock,
  IdGenerator,
  PasswordHasher,
  RefreshFamilyRepository,
  TokenSigner,
  UserRepository,
} from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { type UseCase, fromPromise, flatMap, tap, filterOrElse } from '../shared/te';
import { ExpiringCache } from '../shared/expiring-cache';

export interface IdentityDeps {
  readonly users: UserRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly hasher: PasswordHasher;
  readonly minter: ApiKeyMinter;
  readonly tokens: TokenSigner;
  /** The server-side state of refresh-token rotation: one family per sign-in. */
  readonly refreshFamilies: RefreshFamilyRepository;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /**
   * How long a resolved API key (with its user) and the user behind a token are remembered, in ms; 0
   * (the default) looks them up on every request. A key revoked through this instance stops working
   * at once; one revoked elsewhere (another process on the same database) works for at most this long.
   */
  readonly credentialCacheMs?: number;
  /**
   * The longest a session lives, in seconds from sign-in, however often its tokens are refreshed (so a
   * stolen token cannot be renewed for ever). Undefined: no bound.
   */
  readonly sessionMaxAgeSeconds?: number;
  /**
   * For how long after a refresh token is spent presenting it again is answered with the successor it
   * was exchanged for, rather than taken for theft (two tabs refreshing together, a retry after a lost
   * answer), in ms. 0 (the default): a spent token presented again always revokes its session.
   */
  readonly refreshReuseGraceMs?: number;
  /**
   * How long a refresh family is kept after its session ended before it is removed, in ms: the lifetime
   * of access tokens, so that those of a revoked session issued just before its end stay refused.
   */
  readonly endedFamiliesKeptMs?: number;
}

/** See IdentityUseCases.adminVariablesOutcome. */
export type AdminVariablesOutcome = 'kept' | 'password-ignored' | 'email-unknown';

export interface NewUser {
  readonly email: string;
  readonly password: string;
  readonly role: UserRole;
}

export interface NewApiKey {
  readonly description: string;
  readonly expiresAt: Date | null;
}

/**
 * What signing in gives: an access token, and a refresh token for the cookie flow of the origin's SDKs
 * (none when storage had no room for the session's refresh family).
 */
export interface SignedIn {
  readonly access: AccessToken;
  readonly refresh?: { readonly token: string; readonly expiresAt: Date };
}

/** One batch of the removal of refresh families whose sessions have ended. */
export interface EndedFamilies {
  readonly removed: number;
  /** Fewer than the batch were removed: none is left to remove now. */
  readonly done: boolean;
}

/** The longest life of a refresh family when sessions have none (embedders): so that families do not accumulate. */
const UNBOUNDED_SESSION_SECONDS = 366 * 86_400;

export interface CreatedApiKey {
  readonly key: ApiKey;
  /** The secret: returned once, never stored. */
  readonly secret: string;
}

const WRONG_CREDENTIALS = 'Incorrect username or password';

/** Whether the user's sessions were revoked after `session` began (to the millisecond: a sign-in right after a revocation works). */
const isRevoked = (user: User, session: Session): boolean =>
  user.sessionsValidFrom !== null && session.startedAt.getTime() < user.sessionsValidFrom.getTime();

export class IdentityUseCases {
  /** A real hash of nothing, verified against when the email is unknown so both paths cost the same. */
  private decoyHash: Promise<string> | undefined;
  /** By key hash (never the secret itself): the key and its user. */
  private readonly apiKeys: ExpiringCache<{ readonly key: ApiKey; readonly user: User }>;
  /** By user id: the user a valid token names. */
  private readonly tokenUsers: ExpiringCache<User>;
  /** By key id: the API key a session began with (a token exchanged for a key lives only as long as the key). */
  private readonly sessionKeys: ExpiringCache<ApiKey>;
  /**
   * Counts revocations: a key read before a revocation that lands while the read is in flight is not
   * remembered, or a key revoked just then could come back into the cache for the TTL.
   */
  private revocations = 0;
  /** By family id: the refresh family an access token's session has, for whether it was revoked. */
  private readonly families: ExpiringCache<RefreshFamily>;
  /** Counts family revocations, as `revocations` does key revocations. */
  private familyRevocations = 0;

  constructor(private readonly deps: IdentityDeps) {
    this.apiKeys = new ExpiringCache(deps.credentialCacheMs ?? 0);
    this.tokenUsers = new ExpiringCache(deps.credentialCacheMs ?? 0);
    this.sessionKeys = new ExpiringCache(deps.credentialCacheMs ?? 0);
    this.families = new ExpiringCache(deps.credentialCacheMs ?? 0);
  }

  /**
   * On an empty database, creates the first admin; does nothing once any user exists. Two processes
   * starting together on a new database (replicas, a server and the admin CLI) may both find it empty:
   * the one whose insert comes second finds the address taken (Conflict), which is then done, not a failure.
   */
  bootstrapAdmin(email: string, password: string): UseCase<O.Option<User>> {
    return pipe(
      this.deps.users.count(),
      flatMap((n) =>
        n > 0
          ? TE.right(O.none)
          : pipe(
              this.register({ email, password, role: 'admin' }),
              TE.map(O.some),
              TE.orElse((e): UseCase<O.Option<User>> => (e._tag === 'Conflict' ? TE.right(O.none) : TE.left(e))),
            ),
      ),
    );
  }

  /** How many users the database has: none, and nobody can sign in until a first admin is made. */
  userCount(): UseCase<number> {
    return this.deps.users.count();
  }

  /**
   * What the first-admin variables came to where the database had users already, so that `bootstrapAdmin`
   * made nothing: `kept` when they name a user by its own password; else they were ignored, because that
   * user exists with another password (`password-ignored`) or the users are others (`email-unknown`).
   * Checks the password as a sign-in would, but changes nothing (no new hash, no last sign-in).
   */
  adminVariablesOutcome(email: string, password: string): UseCase<AdminVariablesOutcome> {
    return pipe(
      this.deps.users.findByEmail(normaliseEmail(email)),
      flatMap(
        O.match(
          (): UseCase<AdminVariablesOutcome> => TE.right('email-unknown'),
          (user) => fromPromise(() => this.deps.hasher.verify(password, user.passwordHash).then((same): AdminVariablesOutcome => (same ? 'kept' : 'password-ignored'))),
        ),
      ),
    );
  }

  /** An admin creates users of any role; a manager, users and read-only users (mayCreateUser). */
  createUser(actor: Principal, input: NewUser): UseCase<User> {
    if (!mayManageCredentials(actor)) return TE.left(forbidden(NEEDS_PASSWORD));
    if (mayCreateUser(actor, input.role)) return this.register(input);
    return TE.left(forbidden(actor.role === 'manager' ? `A manager cannot create a user with the role ${input.role}` : 'Only an admin or a manager can create users'));
  }

  currentUser(principal: Principal): UseCase<User> {
    return pipe(
      this.deps.users.findById(principal.userId),
      flatMap(TE.fromOption(() => unauthorized())),
    );
  }

  /** The OAuth2 password flow: email and password for an access token. */
  login(email: string, password: string): UseCase<SignedIn> {
    return pipe(this.verifyPassword(email, password), flatMap((user) => this.signIn(user)));
  }

  /** A session begun with an API key: its tokens can be refreshed only while the key is valid. */
  loginWithApiKey(secret: string): UseCase<SignedIn> {
    return pipe(this.apiKeyOf(secret), flatMap(({ key, user }) => this.signIn(user, key.id)));
  }

  /**
   * The cookie flow: a valid refresh token (of a user who still exists) for new tokens of the same
   * session. The token is rotated (RFC 9700 §4.14): the current one of its family is spent and its
   * successor answered; the one spent last, presented again within the grace window, is answered with
   * that same successor; any other spent one revokes the family, whose tokens are all refused after.
   */
  refreshWithRefreshToken(token: string): UseCase<SignedIn> {
    const now = this.deps.clock.now();
    const claims = this.deps.tokens.verifyRefresh(token, now);
    if (E.isLeft(claims)) return TE.left(unauthorized(claims.left));
    const { session, generation } = claims.right;
    const familyId = session.familyId;
    // A refresh token of before rotation carries no family: it could be used again unseen.
    if (familyId === undefined || generation === undefined) return TE.left(unauthorized('refresh token of an earlier version: sign in again'));
    return pipe(
      this.userOfClaims(claims.right, now),
      flatMap((user) => this.continuable(user, session, now)),
      flatMap((user) => this.spend(user, familyId, generation, now)),
    );
  }

  /**
   * A session begins: its refresh family is stored, then its tokens made. With storage full the
   * sign-in still gives an access token, without a refresh token (there is no family to rotate it in).
   */
  private signIn(user: User, apiKeyId: ApiKeyId | null = null): UseCase<SignedIn> {
    const now = this.deps.clock.now();
    const family: RefreshFamily = {
      id: asId<RefreshFamilyId>(this.deps.ids.next()),
      userId: user.id,
      startedAt: now,
      apiKeyId,
      generation: 0,
      rotatedAt: null,
      revokedAt: null,
      expiresAt: new Date(now.getTime() + (this.deps.sessionMaxAgeSeconds ?? UNBOUNDED_SESSION_SECONDS) * 1000),
    };
    return pipe(
      this.deps.refreshFamilies.insert(family),
      TE.map((stored) => this.tokensOf(user, stored, now)),
      TE.orElse((e): UseCase<SignedIn> =>
        e._tag === 'StorageFull' ? TE.right({ access: this.deps.tokens.issue(user.id, now, { startedAt: now, apiKeyId }, this.sessionEnd(now)) }) : TE.left(e),
      ),
    );
  }

  /**
   * The tokens of `family` as it stands: an access token made now, and the refresh token of its current
   * generation, made at the time that generation began (its rotation, or the sign-in), so that it is the
   * same token each time it is made.
   */
  private tokensOf(user: User, family: RefreshFamily, now: Date): Required<SignedIn> {
    const session: Session = { startedAt: family.startedAt, apiKeyId: family.apiKeyId, familyId: family.id };
    // The family's own end, as judgeRefresh reads it (set at sign-in, whatever the settings are now).
    return {
      access: this.deps.tokens.issue(user.id, now, session, family.expiresAt),
      refresh: this.deps.tokens.issueRefresh(user.id, family.rotatedAt ?? family.startedAt, session, family.generation, family.expiresAt),
    };
  }

  /** When a session begun at `startedAt` ends, however often renewed (none for embedders that set no longest life). */
  private sessionEnd(startedAt: Date): Date | undefined {
    const maxAge = this.deps.sessionMaxAgeSeconds;
    return maxAge === undefined ? undefined : new Date(startedAt.getTime() + maxAge * 1000);
  }

  /**
   * Presents the refresh token of `generation` to its family. The rotation is a compare-and-set on the
   * generation: of two refreshes of the same token (on any processes) one spends it, and the other, its
   * family read again, finds it just spent, so within the grace window it gets the same successor.
   */
  private spend(user: User, id: RefreshFamilyId, generation: number, now: Date, attempts = 3): UseCase<SignedIn> {
    return pipe(
      this.deps.refreshFamilies.findById(id),
      // Gone: removed some time after its session ended.
      flatMap(TE.fromOption(() => unauthorized(SESSION_EXPIRED))),
      flatMap((family): UseCase<SignedIn> => {
        if (family.userId !== user.id) return TE.left(unauthorized('unknown refresh token'));
        const verdict = judgeRefresh(family, generation, now, this.deps.refreshReuseGraceMs ?? 0);
        switch (verdict.kind) {
          case 'refused':
            return TE.left(unauthorized(verdict.reason));
          case 'successor':
            return TE.right(this.tokensOf(user, family, now));
          case 'reused':
            return pipe(
              this.revokeFamily(id, now),
              flatMap(() => TE.left(unauthorized(SESSION_REVOKED_BY_REUSE))),
            );
          case 'rotate':
            return pipe(
              this.deps.refreshFamilies.rotate(id, generation, now),
              flatMap(
                O.match(
                  // Another refresh spent it first (or revoked the family): judged again on what it left.
                  () => (attempts > 1 ? this.spend(user, id, generation, now, attempts - 1) : TE.left(unauthorized(REFRESH_RACED))),
                  (rotated) => TE.right<never, SignedIn>(this.tokensOf(user, rotated, now)),
                ),
              ),
            );
        }
      }),
    );
  }

  /**
   * Sign-out: ends the sessions the presented tokens belong to (an access token, the refresh cookie's
   * token, or both), so that neither those tokens nor the cookie renew anything any more. A token that
   * does not verify (expired, tampered, of before rotation) ends nothing and is no error: signing out
   * is asked for what is left of a session, which may already be over.
   */
  signOut(presented: { readonly accessToken?: string; readonly refreshToken?: string }): UseCase<void> {
    const now = this.deps.clock.now();
    const claims = [
      ...(presented.accessToken === undefined ? [] : [this.deps.tokens.verify(presented.accessToken, now)]),
      ...(presented.refreshToken === undefined ? [] : [this.deps.tokens.verifyRefresh(presented.refreshToken, now)]),
    ].flatMap((c) => (E.isRight(c) && c.right.session.familyId !== undefined ? [{ userId: c.right.userId, familyId: c.right.session.familyId }] : []));
    const families = [...new Map(claims.map((c) => [c.familyId, c])).values()];
    return pipe(
      families,
      TE.traverseSeqArray(({ userId, familyId }) =>
        pipe(
          this.deps.refreshFamilies.findById(familyId),
          // Only a family of the user the token names, and not one already revoked (its revocation time is kept).
          flatMap((found) => (O.isSome(found) && found.value.userId === userId && found.value.revokedAt === null ? this.revokeFamily(familyId, now) : TE.right(undefined))),
        ),
      ),
      TE.map(() => undefined),
    );
  }

  /** Revokes a refresh family: its refresh and access tokens are refused from then on (on other processes within the credential cache's time). */
  private revokeFamily(id: RefreshFamilyId, now: Date): UseCase<void> {
    return pipe(
      this.deps.refreshFamilies.revoke(id, now),
      tap(() => {
        this.familyRevocations++;
        this.families.deleteWhere((f) => f.id === id);
        return TE.right(undefined);
      }),
    );
  }

  /**
   * Removes at most `batch` refresh families whose sessions ended longer ago than `endedFamiliesKeptMs`:
   * a sweep repeats it until `done`.
   */
  removeEndedFamilies(batch: number): UseCase<EndedFamilies> {
    const before = new Date(this.deps.clock.now().getTime() - (this.deps.endedFamiliesKeptMs ?? 0));
    return pipe(
      this.deps.refreshFamilies.removeEndedBefore(before, batch),
      TE.map((removed) => ({ removed, done: removed < batch })),
    );
  }

  /**
   * A valid, unexpired token (of a user who still exists) for a new one with a fresh expiry, in the same
   * session: refused once the session is past its longest life, or its API key is gone.
   */
  refresh(token: string): UseCase<AccessToken> {
    const now = this.deps.clock.now();
    const claims = this.deps.tokens.verify(token, now);
    if (E.isLeft(claims)) return TE.left(unauthorized(claims.left));
    return pipe(
      this.userOfClaims(claims.right, now),
      flatMap((user) => this.continuable(user, claims.right.session, now)),
      TE.map((user) => this.deps.tokens.issue(user.id, now, claims.right.session, this.sessionEnd(claims.right.session.startedAt))),
    );
  }

  /**
   * Whether `session` (of a user found by userOfClaims, so not revoked, and its API key, if it began
   * with one, still valid) may be renewed: not past its longest life.
   */
  private continuable(user: User, session: Session, now: Date): UseCase<User> {
    const end = this.sessionEnd(session.startedAt);
    // Ended, or ending within this second: a token made now (its expiry in whole seconds, capped at the
    // end) would be born expired.
    if (end !== undefined && Math.floor(end.getTime() / 1000) <= Math.floor(now.getTime() / 1000))
      return TE.left(unauthorized('session expired: sign in again'));
    return TE.right(user);
  }

  /**
   * The user's session that began with the API key `keyId` goes on while the key is valid: revoked (or
   * expired), the key takes every token exchanged for it with it, not only their renewal. Remembered
   * for the credential cache's time, as a key presented itself is.
   */
  private keyOfSessionUsable(userId: UserId, keyId: ApiKeyId, now: Date): UseCase<void> {
    const refused = () => unauthorized('the API key this session began with is revoked or expired');
    const elapsed = this.deps.clock.elapsedMs();
    const cached = this.sessionKeys.get(keyId, elapsed);
    if (cached !== undefined) return isApiKeyUsable(cached, now) ? TE.right(undefined) : TE.left(refused());
    const revocations = this.revocations;
    return pipe(
      this.deps.apiKeys.listByUser(userId),
      flatMap((keys) => {
        const key = keys.find((k) => k.id === keyId);
        if (key === undefined || !isApiKeyUsable(key, now)) return TE.left(refused());
        if (this.revocations === revocations) this.sessionKeys.set(keyId, key, elapsed);
        return TE.right(undefined);
      }),
    );
  }

  /**
   * Refuses every session of the user begun before now (and so every token and refresh token of
   * them): for a stolen token or a lost device. Later sign-ins are not affected. Other processes see
   * it within the credential cache's time, as with a revoked key.
   */
  revokeSessions(userId: UserId): UseCase<void> {
    return pipe(
      this.deps.users.revokeSessions(userId, this.deps.clock.now()),
      tap(() => {
        this.tokenUsers.deleteWhere((u) => u.id === userId);
        return TE.right(undefined);
      }),
    );
  }

  authenticate(credentials: PresentedCredentials): UseCase<Principal> {
    const principal = (u: User, apiKeyId: ApiKeyId | null): Principal => ({ userId: u.id, email: u.email, role: u.role, scheme: credentials.scheme, apiKeyId });
    if (credentials.scheme === 'api_key')
      return pipe(
        this.apiKeyOf(credentials.apiKey),
        TE.map(({ key, user }) => principal(user, key.id)),
      );
    if (credentials.scheme === 'basic')
      return pipe(
        this.verifyPassword(credentials.email, credentials.password),
        TE.map((u) => principal(u, null)),
      );
    const now = this.deps.clock.now();
    const claims = this.deps.tokens.verify(credentials.token, now);
    if (E.isLeft(claims)) return TE.left(unauthorized(claims.left));
    return pipe(
      this.userOfClaims(claims.right, now),
      TE.map((u) => principal(u, claims.right.session.apiKeyId)),
    );
  }

  createApiKey(principal: Principal, input: NewApiKey): UseCase<CreatedApiKey> {
    if (!mayManageCredentials(principal)) return TE.left(forbidden(NEEDS_PASSWORD));
    const now = this.deps.clock.now();
    if (input.expiresAt !== null && input.expiresAt.getTime() <= now.getTime())
      return TE.left(invalid(['expires_at'], 'expires_at must be in the future', input.expiresAt.toISOString()));
    const minted = this.deps.minter.mint();
    return pipe(
      this.deps.apiKeys.insert({
        id: asId<ApiKeyId>(this.deps.ids.next()),
        userId: principal.userId,
        description: input.description,
        keyHash: minted.hash,
        truncated: minted.truncated,
        createdAt: now,
        expiresAt: input.expiresAt,
        lastUsedAt: null,
      }),
      TE.map((key) => ({ key, secret: minted.secret })),
    );
  }

  listApiKeys(principal: Principal): UseCase<ReadonlyArray<ApiKey>> {
    return this.deps.apiKeys.listByUser(principal.userId);
  }

  revokeApiKey(principal: Principal, id: ApiKeyId): UseCase<void> {
    if (!mayManageCredentials(principal)) return TE.left(forbidden(NEEDS_PASSWORD));
    return pipe(
      this.deps.apiKeys.revoke(principal.userId, id),
      tap(() => {
        this.revocations++;
        this.apiKeys.deleteWhere((entry) => entry.key.id === id);
        this.sessionKeys.deleteWhere((key) => key.id === id);
        return TE.right(undefined);
      }),
    );
  }

  /** For trusted operators with direct access to the database (the admin CLI); HTTP goes through createUser. */
  register(input: NewUser): UseCase<User> {
    const problem = newUserProblem(input);
    if (O.isSome(problem)) return TE.left(problem.value);
    const email = normaliseEmail(input.email);
    return pipe(
      this.deps.users.findByEmail(email),
      filterOrElse(O.isNone, () => conflict(`A user with email ${email} already exists`)),
      flatMap(() => fromPromise(() => this.deps.hasher.hash(input.password))),
      flatMap((passwordHash) => {
        const now = this.deps.clock.now();
        return this.deps.users.insert({
          id: asId<UserId>(this.deps.ids.next()),
          email,
          role: input.role,
          passwordHash,
          createdAt: now,
          updatedAt: now,
          sessionsValidFrom: null,
        });
      }),
    );
  }

  private verifyPassword(email: string, password: string): UseCase<User> {
    return pipe(
      this.deps.users.findByEmail(normaliseEmail(email)),
      flatMap((found) =>
        fromPromise(async () => {
          const hash = O.isSome(found) ? found.value.passwordHash : await this.decoy();
          const ok = await this.deps.hasher.verify(password, hash);
          // A known user's hash made at a lower cost (or unreadable) fails faster than the decoy: made up.
          if (!ok && O.isSome(found)) await this.deps.hasher.hardenRuntime(password, hash);
          return ok && O.isSome(found) ? O.some(found.value) : O.none;
        }),
      ),
      flatMap(TE.fromOption(() => unauthorized(WRONG_CREDENTIALS))),
      flatMap((user) => (this.deps.hasher.needsRehash(user.passwordHash) ? this.rehashPassword(user, password) : TE.right(user))),
    );
  }

  /**
   * The user's password hashed again as the hasher hashes now (its cost raised since, say), now that it
   * is known to be right: stored only if the stored hash is still the one checked (another sign-in may
   * have moved it first). Bookkeeping: should it fail, the sign-in stands and the next one tries again.
   */
  private rehashPassword(user: User, password: string): UseCase<User> {
    return pipe(
      fromPromise(() => this.deps.hasher.hash(password)),
      flatMap((passwordHash) =>
        pipe(
          this.deps.users.rehashPassword(user.id, user.passwordHash, passwordHash),
          TE.map((moved) => (moved ? { ...user, passwordHash } : user)),
        ),
      ),
      TE.orElse(() => TE.right(user)),
    );
  }

  private apiKeyOf(secret: string): UseCase<{ readonly key: ApiKey; readonly user: User }> {
    const hash = this.deps.minter.hashOf(secret);
    const now = this.deps.clock.now();
    const elapsed = this.deps.clock.elapsedMs();
    // The hash is looked up by equality here: it is an HMAC of the secret, which a caller cannot steer.
    const cached = this.apiKeys.get(hash, elapsed);
    if (cached !== undefined) {
      if (!isApiKeyUsable(cached.key, now)) return TE.left(unauthorized('Invalid API key'));
      return pipe(
        this.touch(hash, cached.key, now),
        TE.map(() => cached),
      );
    }
    const revocations = this.revocations;
    return pipe(
      this.deps.apiKeys.findByHash(hash),
      flatMap((found) => (O.isSome(found) ? TE.right(found) : this.apiKeyUnderPreviousHash(secret, hash))),
      flatMap(
        TE.fromPredicate(
          (k): k is O.Some<ApiKey> =>
            O.isSome(k) && this.deps.minter.sameHash(k.value.keyHash, hash) && isApiKeyUsable(k.value, now),
          () => unauthorized('Invalid API key'),
        ),
      ),
      flatMap(({ value: key }) =>
        pipe(
          this.deps.users.findById(key.userId),
          flatMap(TE.fromOption(() => unauthorized('Invalid API key'))),
          tap((user) => {
            if (this.revocations === revocations) this.apiKeys.set(hash, { key, user }, elapsed);
            return this.touch(hash, key, now);
          }),
          TE.map((user) => ({ key, user })),
        ),
      ),
    );
  }

  /**
   * During a rotation of the server's master key: the key stored under the hash an earlier key gave
   * `secret`, stored again under `hash` (this key's) as it is found, so that it outlives the rotation.
   * Another process may move it first (then it is read under `hash`); with storage full it is found all
   * the same, and moved on a later use.
   */
  private apiKeyUnderPreviousHash(secret: string, hash: string, previousHashes = this.deps.minter.previousHashesOf(secret)): UseCase<O.Option<ApiKey>> {
    const [previous, ...older] = previousHashes;
    if (previous === undefined) return TE.right(O.none);
    return pipe(
      this.deps.apiKeys.findByHash(previous),
      flatMap((found) => {
        if (O.isNone(found) || !this.deps.minter.sameHash(found.value.keyHash, previous)) return this.apiKeyUnderPreviousHash(secret, hash, older);
        return pipe(
          this.deps.apiKeys.rehash(found.value.id, previous, hash),
          TE.orElse((e) => (e._tag === 'StorageFull' ? TE.right(true) : TE.left(e))),
          flatMap((moved) => (moved ? TE.right(O.some({ ...found.value, keyHash: hash })) : this.deps.apiKeys.findByHash(hash))),
        );
      }),
    );
  }

  /** Records last use at most once a minute per key: a read-mostly path should not write on every request. */
  private touch(hash: string, key: ApiKey, now: Date): UseCase<void> {
    const stale = key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() > 60_000;
    if (!stale) return TE.right(undefined);
    // The remembered key learns of its use now, so the requests of the next minute do not write again.
    const cached = this.apiKeys.get(hash, this.deps.clock.elapsedMs());
    if (cached !== undefined) this.apiKeys.update(hash, { key: { ...key, lastUsedAt: now }, user: cached.user });
    // Bookkeeping: with storage full, the key still works (reads go on); its last use is recorded later.
    return pipe(
      this.deps.apiKeys.touch(key.id, now),
      TE.orElse((e) => (e._tag === 'StorageFull' ? TE.right(undefined) : TE.left(e))),
    );
  }

  /**
   * Whether the refresh family of an access token's session is not revoked. Remembered for the
   * credential cache's time, as a user is; a family no longer stored (removed after its session ended)
   * refuses nothing: its tokens' own expiry bounds them.
   */
  private familyUnrevoked(id: RefreshFamilyId): UseCase<void> {
    const refused = () => unauthorized(SESSION_REVOKED_BY_REUSE);
    const elapsed = this.deps.clock.elapsedMs();
    const cached = this.families.get(id, elapsed);
    if (cached !== undefined) return cached.revokedAt === null ? TE.right(undefined) : TE.left(refused());
    const revocations = this.familyRevocations;
    return pipe(
      this.deps.refreshFamilies.findById(id),
      flatMap((found): UseCase<void> => {
        if (O.isNone(found)) return TE.right(undefined);
        if (this.familyRevocations === revocations) this.families.set(id, found.value, elapsed);
        return found.value.revokedAt === null ? TE.right(undefined) : TE.left(refused());
      }),
    );
  }

  /**
   * The user a verified token names, unless its session was revoked or began with an API key no longer
   * valid; for an access token, also unless its session's refresh family was revoked (a refresh token
   * of a refresh token is judged by its family when it is spent).
   */
  private userOfClaims(claims: TokenClaims, now: Date): UseCase<User> {
    const familyId = claims.session.familyId;
    const user = this.userOfSession(claims, now);
    if (familyId === undefined || claims.generation !== undefined) return user;
    return pipe(user, tap(() => this.familyUnrevoked(familyId)));
  }

  private userOfSession(claims: TokenClaims, now: Date): UseCase<User> {
    const userId = claims.userId;
    const elapsed = this.deps.clock.elapsedMs();
    const cached = this.tokenUsers.get(userId, elapsed);
    const user =
      cached !== undefined
        ? TE.right(cached)
        : pipe(
            this.deps.users.findById(userId),
            flatMap(TE.fromOption(() => unauthorized())),
            tap((found) => {
              this.tokenUsers.set(userId, found, elapsed);
              return TE.right(undefined);
            }),
          );
    const unrevoked = pipe(
      user,
      filterOrElse(
        (u) => !isRevoked(u, claims.session),
        () => unauthorized('session revoked: sign in again'),
      ),
    );
    const keyId = claims.session.apiKeyId;
    if (keyId === null) return unrevoked;
    return pipe(
      unrevoked,
      flatMap((u) => pipe(this.keyOfSessionUsable(u.id, keyId, now), TE.map(() => u))),
    );
  }

  private decoy(): Promise<string> {
    this.decoyHash ??= this.deps.hasher.hash('decoy password for unknown users');
    return this.decoyHash;
  }
}
