// Document codecs of every aggregate: the domain's shapes with BSON dates.
import {
  type ApiKey,
  type ApiKeyId,
  type Integration,
  type IntegrationId,
  type Project,
  type ProjectId,
  type RefreshFamily,
  type RefreshFamilyId,
  type Run,
  type RunId,
  type RunInsights,
  type RunScorerSettings,
  type Scorer,
  type ScorerId,
  type ScorerVersion,
  type User,
  type UserId,
  PROJECT_TYPES,
  PROVIDERS,
  RUN_KINDS,
  SCORER_TYPES,
  ScorerDefaultsCodec,
  ScorerDisplayCodec,
  IsoDateText,
  scorerVersionCodec,
  USER_ROLES,
  versionKind,
} from '@tracelight/domain';
import * as t from 'io-ts';
import { parsedJson, withoutDbRefs } from './json-text';
import { BsonDate, CorruptDocument, brandedString, decodeOrThrow, fromDoc, nullable, nullWhenMissing, oneOf } from './run';

const stamps = { createdAt: BsonDate, updatedAt: BsonDate };

export const userFromDoc = fromDoc<User>(
  t.type({ id: brandedString<UserId>(), email: t.string, role: oneOf(USER_ROLES), passwordHash: t.string, ...stamps, sessionsValidFrom: nullWhenMissing(BsonDate) }),
);

export const apiKeyFromDoc = fromDoc<ApiKey>(
  t.type({
    id: brandedString<ApiKeyId>(),
    userId: brandedString<UserId>(),
    description: t.string,
    keyHash: t.string,
    truncated: t.string,
    createdAt: BsonDate,
    expiresAt: nullable(BsonDate),
    lastUsedAt: nullable(BsonDate),
  }),
);

export const refreshFamilyFromDoc = fromDoc<RefreshFamily>(
  t.type({
    id: brandedString<RefreshFamilyId>(),
    userId: brandedString<UserId>(),
    startedAt: BsonDate,
    apiKeyId: nullable(brandedString<ApiKeyId>()),
    generation: t.Integer,
    rotatedAt: nullable(BsonDate),
    revokedAt: nullable(BsonDate),
    expiresAt: BsonDate,
  }),
);

export const projectFromDoc = fromDoc<Project>(
  t.type({ id: brandedString<ProjectId>(), name: t.string, type: oneOf(PROJECT_TYPES), createdBy: brandedString<UserId>(), ...stamps }),
);

export const runFromDoc = fromDoc<Run>(
  t.type({
    id: brandedString<RunId>(),
    projectId: brandedString<ProjectId>(),
    name: t.string,
    kind: oneOf(RUN_KINDS),
    createdBy: brandedString<UserId>(),
    ...stamps,
    // Runs stored before it was kept lack it.
    taskType: nullWhenMissing(t.number),
  }),
);

/** Insights are keyed by run: `_id` is the run id. */
export const insightsFromDoc = (doc: unknown): RunInsights => {
  const d = fromDoc(
    t.type({
      id: brandedString<RunId>(),
      insights: t.type({ logstream: t.type({ enabled: t.boolean, startTime: nullable(BsonDate) }) }),
      updatedAt: BsonDate,
    }),
  )(doc);
  return { runId: d.id, insights: d.insights, updatedAt: d.updatedAt };
};

const integrationDoc = fromDoc(
  t.type({
    id: brandedString<IntegrationId>(),
    provider: oneOf(PROVIDERS),
    name: t.string,
    createdBy: brandedString<UserId>(),
    ...stamps,
    settings: t.record(t.string, t.string),
    sealedSecret: t.string,
    isSelected: t.boolean,
    isDisabled: t.boolean,
  }),
);
/** Permissions have no elements yet (the spec does not show their shape). */
export const integrationFromDoc = (doc: unknown): Integration => {
  const { permissions: _p, ...rest } = doc as { permissions?: unknown };
  return { ...integrationDoc(rest), permissions: [] };
};

export const scorerFromDoc = fromDoc<Scorer>(
  t.type({
    id: brandedString<ScorerId>(),
    name: t.string,
    scorerType: oneOf(SCORER_TYPES),
    description: t.string,
    tags: t.readonlyArray(t.string),
    defaults: ScorerDefaultsCodec,
    display: ScorerDisplayCodec,
    createdBy: brandedString<UserId>(),
    ...stamps,
  }),
);

/** A version as written before its JSON form (migration 11): its fields as BSON, dates as BSON dates. */
const versionFieldsCodec = scorerVersionCodec(BsonDate);
/** A version's JSON text: dates as ISO text, as SQLite's scorer_versions.body holds them. */
const versionJsonCodec = scorerVersionCodec(IsoDateText);

/**
 * A scorer version's document: its JSON text (`body`, what SQLite's scorer_versions.body holds), beside
 * the fields its indexes and queries read (`scorerId`, `version`, `kind`, derived). Its response schema
 * and a luna version's class_name_to_vocab_ix are the client's JSON, and every text in it the client's:
 * as BSON, an object shaped like a DBRef (`$ref` and `$id`, at any depth) came back as a DBRef, a NUL in
 * a key or a member named `_bsontype` was refused (a 422 on MongoDB only), and half of a surrogate pair
 * in a prompt came back as U+FFFD. Nothing queries the rest, so nothing needs it as fields.
 */
export const scorerVersionToDoc = (v: ScorerVersion) => ({ _id: v.id, scorerId: v.scorerId, version: v.version, kind: versionKind(v), body: JSON.stringify(v) });

/**
 * A version from its document, of either form: its JSON text, or its fields as BSON (written by an
 * earlier build), where a response schema or vocabulary shaped like a DBRef read back as a DBRef and is
 * made an object again (withoutDbRefs). The derived `kind` is not part of the version.
 */
export const scorerVersionFromDoc = (doc: unknown): ScorerVersion => {
  if (typeof doc !== 'object' || doc === null) throw new CorruptDocument('not a document');
  const { kind: _kind, body, ...fields } = doc as { kind?: unknown; body?: unknown };
  if (body !== undefined) return decodeOrThrow(versionJsonCodec, parsedJson(body, 'body'));
  return fromDoc(versionFieldsCodec)(withoutDbRefs(fields));
};

export const runScorersFromDoc = (doc: unknown): RunScorerSettings => {
  const d = fromDoc(
    t.type({
      id: brandedString<RunId>(),
      // sampleRate: absent in settings stored before sampling (read as every record).
      scorers: t.readonlyArray(t.intersection([t.type({ scorerId: brandedString<ScorerId>(), version: nullable(t.number) }), t.exact(t.partial({ sampleRate: t.number }))])),
      updatedAt: BsonDate,
    }),
  )(doc);
  return { runId: d.id, scorers: d.scorers, updatedAt: d.updatedAt };
};
