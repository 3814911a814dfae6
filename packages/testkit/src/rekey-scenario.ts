// The data a database made by a build before version-4 ids holds (every id the server made a UUIDv7),
// stored through the repositories, and what the re-keying migration (SQLite 10, MongoDB 14) must make
// of it: each engine's suite stores this, runs its migration again, and checks with `expectRekeyed`.
import {
  type ApiKeyId,
  type IntegrationId,
  type LogRecord,
  type ProjectId,
  type RefreshFamilyId,
  type RunId,
  type ScorerId,
  type ScorerVersionId,
  type UserId,
  asId,
  rekeyedId,
} from '@tracelight/domain';
import type { Repositories } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import { randomBytes } from 'node:crypto';
import { aProject, aRecord, aRefreshFamily, aRun, aScorer, aUser, anApiKey, anIntegration, anLlmVersion, at } from './fixtures';
import { right } from './repository-contract';

/** A random UUIDv7 (the layout the earlier builds made ids in). */
export const aV7Id = (): string => {
  const b = randomBytes(16);
  b.writeUIntBE(Date.now(), 0, 6);
  b[6] = 0x70 | (b[6]! & 0x0f);
  b[8] = 0x80 | (b[8]! & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

export type StoredV7World = Awaited<ReturnType<typeof storeV7World>>;

/**
 * A user with an API key, a refresh family, a gateway integration, a scorer with a version, a project
 * with a log stream (insights, scorer settings, a session and a trace of it) and an experiment, all
 * under version-7 ids; beside them a project already under a version-4 id, and record ids a client
 * chose that look like version-7 ids (they are the client's, and stay).
 */
export const storeV7World = async (r: Repositories) => {
  const user = await right(r.users.insert(aUser({ id: asId<UserId>(aV7Id()) })));
  const key = await right(r.apiKeys.insert(anApiKey(user.id, { id: asId<ApiKeyId>(aV7Id()) })));
  const family = await right(r.refreshFamilies.insert(aRefreshFamily(user.id, { id: asId<RefreshFamilyId>(aV7Id()), apiKeyId: key.id })));
  const integration = await right(r.integrations.upsert(anIntegration(user.id, { id: asId<IntegrationId>(aV7Id()) })));
  const scorer = await right(r.scorers.insert(aScorer(user.id, { id: asId<ScorerId>(aV7Id()) })));
  const template = anLlmVersion(scorer, 1);
  const version = await right(
    r.scorerVersions.appendNext(scorer.id, (n) => ({ ...template, id: asId<ScorerVersionId>(aV7Id()), version: n, generatedScorer: { ...template.generatedScorer!, id: aV7Id() } })),
  );
  const project = await right(r.projects.insert(aProject(user.id, { id: asId<ProjectId>(aV7Id()) })));
  const newer = await right(r.projects.insert(aProject(user.id)));
  const logStream = await right(r.runs.insert(aRun(project, { id: asId<RunId>(aV7Id()) })));
  const experiment = await right(r.runs.insert(aRun(project, { id: asId<RunId>(aV7Id()), kind: 'experiment', taskType: 16 })));
  await right(r.insights.replace({ runId: logStream.id, insights: { logstream: { enabled: true, startTime: null } }, updatedAt: at('2026-05-01T00:00:00.000Z') }));
  await right(r.runScorers.replace({ runId: logStream.id, scorers: [{ scorerId: scorer.id, version: 1 }], updatedAt: at('2026-05-01T00:00:00.000Z') }));
  const sessionId = aV7Id();
  const session = aRecord(logStream, { id: sessionId, type: 'session', traceId: null, sessionId, externalId: 'conversation-1' });
  // Client ids of the version-7 form: the client's, kept; one trace names a session id the run does not hold.
  const trace = aRecord(logStream, { id: aV7Id(), sessionId, hasChildren: true, createdAt: at('2026-05-01T00:00:00.000Z') });
  const span = aRecord(logStream, { id: aV7Id(), type: 'llm', traceId: trace.id, parentId: trace.id, sessionId });
  const foreign = aV7Id();
  const stray = aRecord(logStream, { id: aV7Id(), sessionId: foreign, createdAt: at('2026-05-02T00:00:00.000Z') });
  await right(r.logRecords.ingest(logStream.id, [session, trace, span, stray], ['input', 'name', 'external_id']));
  return { user, key, family, integration, scorer, version, project, newer, logStream, experiment, session, trace, span, stray, foreign };
};

/** Every id the server made is its version-4 counterpart (rekeyedId); the client's ids and what was already version 4 stay. */
export const expectRekeyed = async (r: Repositories, w: StoredV7World): Promise<void> => {
  const rk = <I extends string>(id: I): I => rekeyedId(id) as I;
  const search = async (runId: RunId, projectId: ProjectId, scope: 'traces' | 'spans' | 'sessions'): Promise<ReadonlyArray<LogRecord>> =>
    (
      await right(
        r.logRecords.search({ projectId, runId, scope, filters: [], sort: { columnId: 'created_at', ascending: true }, page: { startingToken: 0, limit: 100 }, maxBytes: 1 << 30, maxMs: 60_000 }),
      )
    ).items;
  const userId = rk(w.user.id);
  expect(userId).not.toBe(w.user.id);
  expect(userId[14]).toBe('4');
  expect(await right(r.users.findById(userId))).toEqual(O.some({ ...w.user, id: userId }));
  expect(await right(r.users.findById(w.user.id))).toEqual(O.none);
  expect(await right(r.apiKeys.listByUser(userId))).toEqual([{ ...w.key, id: rk(w.key.id), userId }]);
  expect(await right(r.refreshFamilies.findById(rk(w.family.id)))).toEqual(O.some({ ...w.family, id: rk(w.family.id), userId, apiKeyId: rk(w.key.id) }));
  expect(await right(r.integrations.findByOwner(userId, 'gateway'))).toEqual(O.some({ ...w.integration, id: rk(w.integration.id), createdBy: userId }));
  const scorerId = rk(w.scorer.id);
  expect(await right(r.scorers.findById(scorerId))).toEqual(O.some({ ...w.scorer, id: scorerId, createdBy: userId }));
  expect(await right(r.scorerVersions.findLatest(scorerId))).toEqual(
    O.some({ ...w.version, id: rk(w.version.id), scorerId, createdBy: userId, generatedScorer: { ...w.version.generatedScorer!, id: rk(w.version.generatedScorer!.id), createdBy: userId } }),
  );
  const projectId = rk(w.project.id);
  expect(await right(r.projects.listByOwner(userId, {}))).toEqual([
    { ...w.project, id: projectId, createdBy: userId },
    { ...w.newer, createdBy: userId },
  ]);
  const runId = rk(w.logStream.id);
  expect(await right(r.runs.listInProject(projectId, 'log_stream'))).toEqual([{ ...w.logStream, id: runId, projectId, createdBy: userId }]);
  expect(await right(r.runs.listInProject(projectId, 'experiment'))).toEqual([{ ...w.experiment, id: rk(w.experiment.id), projectId, createdBy: userId }]);
  expect(O.isSome(await right(r.insights.find(runId)))).toBe(true);
  expect(await right(r.runScorers.find(runId))).toEqual(O.some(expect.objectContaining({ runId, scorers: [{ scorerId, version: 1 }] })));
  const sessionId = rk(w.session.id);
  const moved = (x: LogRecord) => ({ ...x, runId, projectId });
  expect(await search(runId, projectId, 'sessions')).toEqual([{ ...moved(w.session), id: sessionId, sessionId }]);
  expect(await search(runId, projectId, 'traces')).toEqual([{ ...moved(w.trace), sessionId }, moved(w.stray)]);
  expect(await search(runId, projectId, 'spans')).toEqual([{ ...moved(w.span), sessionId }]);
  expect(w.stray.sessionId).toBe(w.foreign);
  expect([...(await right(r.logRecords.presentColumns(runId)))].sort()).toEqual(['external_id', 'input', 'name']);
};

export type StoredSessionClash = Awaited<ReturnType<typeof storeSessionClash>>;

/**
 * Beside a stored version-7 world: a session of its log stream whose version-4 form (rekeyedId) is the id a
 * client chose for a trace of the same run (the form is predictable: anyone could plant it), and a trace
 * of that session. Re-keyed, the session would take the trace's key.
 */
export const storeSessionClash = async (r: Repositories, w: StoredV7World) => {
  const sessionId = aV7Id();
  const session = aRecord(w.logStream, { id: sessionId, type: 'session', traceId: null, sessionId, externalId: 'conversation-2', createdAt: at('2026-05-03T00:00:00.000Z') });
  const squatter = aRecord(w.logStream, { id: rekeyedId(sessionId), createdAt: at('2026-05-04T00:00:00.000Z') });
  const member = aRecord(w.logStream, { id: aV7Id(), sessionId, createdAt: at('2026-05-05T00:00:00.000Z') });
  await right(r.logRecords.ingest(w.logStream.id, [session, squatter, member], ['input', 'name', 'external_id']));
  return { session, squatter, member };
};

/** The clashing session keeps its version-7 id, its trace still names it, the client's trace is untouched; the rest is re-keyed as usual. */
export const expectSessionClashKept = async (r: Repositories, w: StoredV7World, c: StoredSessionClash): Promise<void> => {
  const runId = rekeyedId(w.logStream.id) as RunId;
  const projectId = rekeyedId(w.project.id) as ProjectId;
  const moved = (x: LogRecord) => ({ ...x, runId, projectId });
  const ids = [c.session.id, c.squatter.id, c.member.id, rekeyedId(w.session.id)];
  const found = new Map((await right(r.logRecords.findByIds(runId, ids))).map((x) => [x.id, x]));
  expect(found.get(c.session.id)).toEqual(moved(c.session));
  expect(found.get(c.squatter.id)).toEqual(moved(c.squatter));
  expect(found.get(c.member.id)).toEqual(moved(c.member));
  expect(found.get(rekeyedId(w.session.id))).toEqual(expect.objectContaining({ type: 'session', sessionId: rekeyedId(w.session.id) }));
};
