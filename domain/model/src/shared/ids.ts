// Branded identifiers: a run id cannot be passed where a project id belongs.
declare const brand: unique symbol;
export type Brand<T, B extends string> = T & { readonly [brand]: B };

export type UserId = Brand<string, 'UserId'>;
export type ApiKeyId = Brand<string, 'ApiKeyId'>;
export type ProjectId = Brand<string, 'ProjectId'>;
export type RunId = Brand<string, 'RunId'>;
export type IntegrationId = Brand<string, 'IntegrationId'>;
export type ScorerId = Brand<string, 'ScorerId'>;
export type ScorerVersionId = Brand<string, 'ScorerVersionId'>;
/** A sign-in's family of refresh tokens (RefreshFamily): the server-side half of a session. */
export type RefreshFamilyId = Brand<string, 'RefreshFamilyId'>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True for the canonical 8-4-4-4-12 hexadecimal UUID form (any version). */
export const isUuid = (s: string): boolean => UUID.test(s);

/**
 * Casts a string already known to be a UUID (validated at the boundary, or freshly generated)
 * to a branded id. Ids are kept lower-case so that lookups never depend on the caller's casing.
 */
export const asId = <I extends Brand<string, string>>(s: string): I => s.toLowerCase() as I;
