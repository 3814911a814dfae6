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
  scorerVersionCodec,
  USER_ROLES,
} from '@tracelight/domain';
import * as t from 'io-ts';
import { BsonDate, brandedString, fromDoc, nullable, nullWhenMissing, oneOf } from './run';

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

const versionCodec = scorerVersionCodec(BsonDate);
/** Version documents carry a `kind` for indexing; it is derived, so it is dropped on the way back. */
export const scorerVersionFromDoc = (doc: unknown): ScorerVersion => {
  const { kind: _kind, ...rest } = doc as { kind?: unknown };
  return fromDoc(versionCodec)(rest);
};

export const runScorersFromDoc = (doc: unknown): RunScorerSettings => {
  const d = fromDoc(
    t.type({
      id: brandedString<RunId>(),
      scorers: t.readonlyArray(t.type({ scorerId: brandedString<ScorerId>(), version: nullable(t.number) })),
      updatedAt: BsonDate,
    }),
  )(doc);
  return { runId: d.id, scorers: d.scorers, updatedAt: d.updatedAt };
};
