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

/** The version nibble of a canonical UUID (its 13th hexadecimal digit); undefined for other text. */
export const uuidVersion = (s: string): number | undefined => (isUuid(s) ? parseInt(s[14]!, 16) : undefined);

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The id a version-7 id made by an earlier build is re-keyed to (SQLite migration 10, MongoDB 14): the
 * same bits under version nibble 4, which is the layout the server makes its ids in now (time-ordered
 * version 4). Anything else is left as it is. One function of the id alone, so every reference to it
 * is re-keyed alike, wherever it is stored, without a table of old and new ids.
 */
export const rekeyedId = (id: string): string => (V7.test(id) ? `${id.slice(0, 14)}4${id.slice(15)}` : id);

/** The version-7 id a re-keyed id had before (rekeyedId), for what was bound to it: undefined for an id of another version. */
export const formerV7Id = (id: string): string | undefined =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id) ? `${id.slice(0, 14)}7${id.slice(15)}` : undefined;
