// The repository contract: written once against the ports, run against every storage adapter.
// Passing it is what makes adapters interchangeable.
import { type ApiKeyId, type DomainError, type Integration, type IntegrationId, type Json, type LogRecord, type MetricValue, type RefreshFamilyId, type UserId, asId } from '@tracelight/domain';

/** The times concurrent rotations are made at (apart by a millisecond each). */
const T_ROTATIONS = Date.parse('2026-05-05T12:00:00.000Z');
import type { Project, ProjectId, Run, RunId, Scorer } from '@tracelight/domain';
import type { ProjectRepository, RecordPosition, RecordQuery, Repositories, Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import { randomUUID } from 'node:crypto';
import {
  aCodeVersion,
  aLunaVersion,
  aProject,
  aRun,
  aScorer,
  aUser,
  aRefreshFamily,
  anApiKey,
  anIntegration,
  anLlmVersion,
  aRecord,
  at,
} from './fixtures';

export interface RepositoryHarness {
  setup(): Promise<Repositories>;
  teardown(): Promise<void>;
}

/** Purges a retired project in steps of `limit` records (small, so that a test takes several), adding up what they removed. */
export const purgeRetired = async (projects: ProjectRepository, id: ProjectId, limit = 2) => {
  const total = { runs: 0, records: 0, steps: 0 };
  for (;;) {
    const step = await right(projects.purgeStep(id, limit));
    total.runs += step.runs;
    total.records += step.records;
    total.steps += 1;
    if (step.finished) return total;
    if (total.steps > 1_000) throw new Error('the purge does not finish');
  }
};

/** Differences allowed between engines. */
export interface ContractOptions {
  /** How many concurrent version creations to race (engines with connection pools may want fewer). */
  readonly concurrentAppends?: number;
  /**
   * The engine's limit on one stored record, as it stores it (MongoDB: 16 MiB a document, a string
   * holding half of a surrogate pair counted twice): a record past it is refused as Invalid. None on SQLite.
   */
  readonly recordLimit?: 'mongodb-16-MiB';
}

import { left, right } from './results';
import { describeScoringQueueContract } from './scoring-queue-contract';

export { left, right } from './results';

/**
 * `count` runs of one new project of a new user, stored through the repositories of what runs hang off
 * alone: all that works of a database at an earlier schema, whose other tables today's repositories
 * would not find as they expect.
 */
export const runsOfANewProject = async (r: Pick<Repositories, 'users' | 'projects' | 'runs'>, count = 1): Promise<Run[]> => {
  const owner = await right(r.users.insert(aUser()));
  const project = await right(r.projects.insert(aProject(owner.id)));
  const runs: Run[] = [];
  for (let i = 0; i < count; i++) runs.push(await right(r.runs.insert(aRun(project))));
  return runs;
};

/**
 * Stores a project of `owner` with a run of each kind, each run with a trace, a span, a session, column
 * presence, insights and scorer settings (of a scorer of the owner's): everything a project's deletion
 * must take with it.
 */
export const storeAFullProject = async (r: Repositories, owner: UserId): Promise<{ project: Project; runs: Run[]; scorer: Scorer }> => {
  const project = await right(r.projects.insert(aProject(owner)));
  const runs: Run[] = [];
  for (const kind of ['log_stream', 'experiment', 'metrics_testing'] as const) runs.push(await right(r.runs.insert(aRun(project, { kind }))));
  const scorer = await right(r.scorers.insert(aScorer(owner)));
  for (const run of runs) {
    const trace = aRecord(run);
    const span = aRecord(run, { type: 'llm', traceId: trace.id, parentId: trace.id });
    const session = aRecord(run, { type: 'session', traceId: null });
    // The span with a scoring job, which must go with the run too.
    const job = { runId: run.id, projectId: run.projectId, recordId: span.id, traceId: trace.id, scorerId: scorer.id, version: 1, kind: 'llm' as const, metricName: scorer.name, ownerId: owner };
    await right(r.logRecords.ingest(run.id, [trace, span, session], ['input', 'name'], [job]));
    await right(r.insights.replace({ runId: run.id, insights: { logstream: { enabled: true, startTime: null } }, updatedAt: at('2026-05-01T00:00:00.000Z') }));
    await right(r.runScorers.replace({ runId: run.id, scorers: [{ scorerId: scorer.id, version: null }], updatedAt: at('2026-05-01T00:00:00.000Z') }));
  }
  return { project, runs, scorer };
};

export const describeRepositoryContract = (engine: string, harness: RepositoryHarness, options: ContractOptions = {}): void => {
  describe(`repository contract: ${engine}`, () => {
    let r: Repositories;
    beforeAll(async () => {
      r = await harness.setup();
    });
    afterAll(() => harness.teardown());

    const someUser = async () => right(r.users.insert(aUser()));

    describe('UserRepository', () => {
      it('inserts and finds by id and by email, whole', async () => {
        const u = aUser({ role: 'admin' });
        expect(await right(r.users.insert(u))).toEqual(u);
        expect(await right(r.users.findById(u.id))).toEqual(O.some(u));
        expect(await right(r.users.findByEmail(u.email))).toEqual(O.some(u));
      });
      it('answers none for unknown ids and emails', async () => {
        expect(await right(r.users.findById(asId<UserId>(randomUUID())))).toEqual(O.none);
        expect(await right(r.users.findByEmail('nobody@nowhere.example'))).toEqual(O.none);
      });
      it('refuses a second user with the same email (Conflict)', async () => {
        const u = await someUser();
        expect((await left(r.users.insert(aUser({ email: u.email }))))._tag).toBe('Conflict');
      });
      it('counts users', async () => {
        const before = await right(r.users.count());
        await someUser();
        await someUser();
        expect(await right(r.users.count())).toBe(before + 2);
      });
      it('revokes a user’s sessions from a moment on, and answers NotFound for an unknown user', async () => {
        const u = await someUser();
        const at = new Date('2026-11-23T10:00:00.123Z');
        await right(r.users.revokeSessions(u.id, at));
        expect(await right(r.users.findById(u.id))).toEqual(O.some({ ...u, sessionsValidFrom: at, updatedAt: at }));
        expect((await left(r.users.revokeSessions(asId<UserId>(randomUUID()), at)))._tag).toBe('NotFound');
      });
      it('replaces a password hash only from the one stored, keeping updatedAt (a hash made again at another cost)', async () => {
        const u = await someUser();
        expect(await right(r.users.rehashPassword(u.id, 'scrypt$not$its$hash', 'scrypt$x'))).toBe(false);
        expect(await right(r.users.findById(u.id))).toEqual(O.some(u));
        const to = `${u.passwordHash}-again`;
        expect(await right(r.users.rehashPassword(u.id, u.passwordHash, to))).toBe(true);
        expect(await right(r.users.findByEmail(u.email))).toEqual(O.some({ ...u, passwordHash: to }));
        // A second sign-in moving it from the same hash finds it moved: nothing changes; nor for an unknown id.
        expect(await right(r.users.rehashPassword(u.id, u.passwordHash, `${u.passwordHash}-twice`))).toBe(false);
        expect(await right(r.users.rehashPassword(asId<UserId>(randomUUID()), to, 'scrypt$y'))).toBe(false);
        expect(await right(r.users.findById(u.id))).toEqual(O.some({ ...u, passwordHash: to }));
        // The stored hash, to itself: it is the one stored, so true (as a count of rows matched, not changed).
        expect(await right(r.users.rehashPassword(u.id, to, to))).toBe(true);
      });
    });

    describe('ApiKeyRepository', () => {
      it('inserts, finds by hash, lists newest first', async () => {
        const u = await someUser();
        const older = anApiKey(u.id, { createdAt: at('2026-01-01T00:00:00.001Z') });
        const newer = anApiKey(u.id, { createdAt: at('2026-02-01T00:00:00.002Z'), expiresAt: at('2027-01-01T00:00:00.003Z') });
        await right(r.apiKeys.insert(older));
        await right(r.apiKeys.insert(newer));
        expect(await right(r.apiKeys.findByHash(newer.keyHash))).toEqual(O.some(newer));
        expect(await right(r.apiKeys.findByHash('no-such-hash'))).toEqual(O.none);
        expect(await right(r.apiKeys.listByUser(u.id))).toEqual([newer, older]);
        expect(await right(r.apiKeys.listByUser((await someUser()).id))).toEqual([]);
      });
      it('refuses a duplicate hash (Conflict)', async () => {
        const u = await someUser();
        const k = anApiKey(u.id);
        await right(r.apiKeys.insert(k));
        expect((await left(r.apiKeys.insert(anApiKey(u.id, { keyHash: k.keyHash }))))._tag).toBe('Conflict');
      });
      it('revokes the owner’s key only; another user’s is NotFound', async () => {
        const u = await someUser();
        const other = await someUser();
        const k = anApiKey(u.id);
        await right(r.apiKeys.insert(k));
        expect((await left(r.apiKeys.revoke(other.id, k.id)))._tag).toBe('NotFound');
        expect(await right(r.apiKeys.findByHash(k.keyHash))).toEqual(O.some(k));
        await right(r.apiKeys.revoke(u.id, k.id));
        expect(await right(r.apiKeys.findByHash(k.keyHash))).toEqual(O.none);
        expect((await left(r.apiKeys.revoke(u.id, k.id)))._tag).toBe('NotFound');
      });
      it('moves a key to a new hash only from the hash it is stored under (a rotation of the master key)', async () => {
        const u = await someUser();
        const k = anApiKey(u.id);
        await right(r.apiKeys.insert(k));
        expect(await right(r.apiKeys.rehash(k.id, 'not-its-hash', 'elsewhere'))).toBe(false);
        expect(await right(r.apiKeys.findByHash(k.keyHash))).toEqual(O.some(k));
        const to = `${k.keyHash}-rotated`;
        expect(await right(r.apiKeys.rehash(k.id, k.keyHash, to))).toBe(true);
        expect(await right(r.apiKeys.findByHash(k.keyHash))).toEqual(O.none);
        expect(await right(r.apiKeys.findByHash(to))).toEqual(O.some({ ...k, keyHash: to }));
        // A second process moving it from the old hash finds it gone: nothing changes.
        expect(await right(r.apiKeys.rehash(k.id, k.keyHash, `${k.keyHash}-again`))).toBe(false);
        expect(await right(r.apiKeys.findByHash(to))).toEqual(O.some({ ...k, keyHash: to }));
        // To the hash it is stored under: it is there, so true (matched, not changed).
        expect(await right(r.apiKeys.rehash(k.id, to, to))).toBe(true);
        // Onto a hash another key holds: Conflict, and neither moves.
        const other = anApiKey(u.id);
        await right(r.apiKeys.insert(other));
        expect((await left(r.apiKeys.rehash(k.id, to, other.keyHash)))._tag).toBe('Conflict');
        expect(await right(r.apiKeys.findByHash(to))).toEqual(O.some({ ...k, keyHash: to }));
        await right(r.apiKeys.revoke(u.id, k.id));
        expect(await right(r.apiKeys.rehash(k.id, to, `${to}-revoked`))).toBe(false);
      });
      it('records last use', async () => {
        const u = await someUser();
        const k = anApiKey(u.id);
        await right(r.apiKeys.insert(k));
        const used = at('2026-06-01T12:00:00.456Z');
        await right(r.apiKeys.touch(k.id, used));
        expect(await right(r.apiKeys.findByHash(k.keyHash))).toEqual(O.some({ ...k, lastUsedAt: used }));
      });
    });

    describe('RefreshFamilyRepository', () => {
      it('inserts and finds by id, whole; none for an unknown id; Conflict for a taken id', async () => {
        const u = await someUser();
        const f = aRefreshFamily(u.id, { apiKeyId: asId<ApiKeyId>(randomUUID()) });
        expect(await right(r.refreshFamilies.insert(f))).toEqual(f);
        expect(await right(r.refreshFamilies.findById(f.id))).toEqual(O.some(f));
        expect(await right(r.refreshFamilies.findById(asId<RefreshFamilyId>(randomUUID())))).toEqual(O.none);
        expect((await left(r.refreshFamilies.insert(f)))._tag).toBe('Conflict');
      });
      it('rotates from the current generation only: a second rotation from the same one changes nothing', async () => {
        const f = await right(r.refreshFamilies.insert(aRefreshFamily((await someUser()).id)));
        const first = at('2026-05-05T00:00:00.001Z');
        const rotated = { ...f, generation: 1, rotatedAt: first };
        expect(await right(r.refreshFamilies.rotate(f.id, 0, first))).toEqual(O.some(rotated));
        expect(await right(r.refreshFamilies.rotate(f.id, 0, at('2026-05-05T00:00:00.002Z')))).toEqual(O.none);
        expect(await right(r.refreshFamilies.findById(f.id))).toEqual(O.some(rotated));
        expect(await right(r.refreshFamilies.rotate(asId<RefreshFamilyId>(randomUUID()), 0, first))).toEqual(O.none);
      });
      it('lets exactly one of many concurrent rotations from one generation through', async () => {
        const f = await right(r.refreshFamilies.insert(aRefreshFamily((await someUser()).id, { generation: 3 })));
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => right(r.refreshFamilies.rotate(f.id, 3, new Date(T_ROTATIONS + i)))));
        expect(outcomes.filter(O.isSome)).toHaveLength(1);
        expect(O.map((g: { generation: number }) => g.generation)(await right(r.refreshFamilies.findById(f.id)))).toEqual(O.some(4));
      });
      it('revokes once (the first time is kept), and a revoked family does not rotate', async () => {
        const f = await right(r.refreshFamilies.insert(aRefreshFamily((await someUser()).id)));
        const revokedAt = at('2026-05-06T00:00:00.003Z');
        await right(r.refreshFamilies.revoke(f.id, revokedAt));
        await right(r.refreshFamilies.revoke(f.id, at('2026-05-07T00:00:00.004Z')));
        expect(await right(r.refreshFamilies.findById(f.id))).toEqual(O.some({ ...f, revokedAt }));
        expect(await right(r.refreshFamilies.rotate(f.id, 0, at('2026-05-08T00:00:00.005Z')))).toEqual(O.none);
        await right(r.refreshFamilies.revoke(asId<RefreshFamilyId>(randomUUID()), revokedAt));
      });
      it('removes the families whose session ended before a time, at most a batch at a time', async () => {
        const u = await someUser();
        const ended = [1, 2, 3].map((d) => aRefreshFamily(u.id, { expiresAt: at(`1990-01-0${d}T00:00:00.000Z`) }));
        const live = aRefreshFamily(u.id, { expiresAt: at('1995-01-01T00:00:00.000Z') });
        for (const f of [...ended, live]) await right(r.refreshFamilies.insert(f));
        const before = at('1995-01-01T00:00:00.000Z');
        expect(await right(r.refreshFamilies.removeEndedBefore(before, 2))).toBe(2);
        expect(await right(r.refreshFamilies.removeEndedBefore(before, 2))).toBe(1);
        expect(await right(r.refreshFamilies.removeEndedBefore(before, 2))).toBe(0);
        for (const f of ended) expect(await right(r.refreshFamilies.findById(f.id))).toEqual(O.none);
        expect(await right(r.refreshFamilies.findById(live.id))).toEqual(O.some(live));
      });
    });

    describe('ProjectRepository', () => {
      it('inserts, finds, and lists the owner’s projects oldest first, narrowed by name and type', async () => {
        const u = await someUser();
        const a = aProject(u.id, { createdAt: at('2026-01-01T00:00:00.000Z') });
        const b = aProject(u.id, { createdAt: at('2026-01-02T00:00:00.000Z'), type: 'llm_monitor' });
        await right(r.projects.insert(b));
        await right(r.projects.insert(a));
        await right(r.projects.insert(aProject((await someUser()).id)));
        expect(await right(r.projects.findById(a.id))).toEqual(O.some(a));
        expect(await right(r.projects.listByOwner(u.id, {}))).toEqual([a, b]);
        expect(await right(r.projects.listByOwner(u.id, { name: b.name }))).toEqual([b]);
        expect(await right(r.projects.listByOwner(u.id, { type: 'gen_ai' }))).toEqual([a]);
        expect(await right(r.projects.listByOwner(u.id, { name: a.name, type: 'llm_monitor' }))).toEqual([]);
      });
      it('refuses a second project of the same name for one owner, allows it for another', async () => {
        const u = await someUser();
        const p = await right(r.projects.insert(aProject(u.id)));
        expect((await left(r.projects.insert(aProject(u.id, { name: p.name }))))._tag).toBe('Conflict');
        await right(r.projects.insert(aProject((await someUser()).id, { name: p.name })));
      });
    });

    describe('RunRepository', () => {
      it('finds a run only in its own project, and lists by kind and name', async () => {
        const u = await someUser();
        const p = await right(r.projects.insert(aProject(u.id)));
        const other = await right(r.projects.insert(aProject(u.id)));
        const ls = aRun(p, { createdAt: at('2026-01-01T00:00:00.000Z') });
        const ex = aRun(p, { kind: 'experiment', name: ls.name });
        const ls2 = aRun(p, { createdAt: at('2026-01-03T00:00:00.000Z') });
        for (const x of [ls2, ex, ls]) await right(r.runs.insert(x));
        expect(await right(r.runs.findInProject(p.id, ls.id))).toEqual(O.some(ls));
        expect(await right(r.runs.findInProject(other.id, ls.id))).toEqual(O.none);
        expect(await right(r.runs.listInProject(p.id, 'log_stream'))).toEqual([ls, ls2]);
        expect(await right(r.runs.listInProject(p.id, 'experiment'))).toEqual([ex]);
        expect(await right(r.runs.listInProject(p.id, 'log_stream', ls2.name))).toEqual([ls2]);
        expect(await right(r.runs.listInProject(p.id, 'metrics_testing'))).toEqual([]);
      });
      it("keeps an experiment's task type, and none for a log stream", async () => {
        const u = await someUser();
        const p = await right(r.projects.insert(aProject(u.id)));
        const ex = await right(r.runs.insert(aRun(p, { kind: 'experiment', taskType: 7 })));
        const ls = await right(r.runs.insert(aRun(p)));
        expect(await right(r.runs.findInProject(p.id, ex.id))).toEqual(O.some({ ...ex, taskType: 7 }));
        expect(await right(r.runs.findInProject(p.id, ls.id))).toEqual(O.some({ ...ls, taskType: null }));
      });
      it('refuses a second run of the same kind and name in a project', async () => {
        const u = await someUser();
        const p = await right(r.projects.insert(aProject(u.id)));
        const ls = await right(r.runs.insert(aRun(p)));
        expect((await left(r.runs.insert(aRun(p, { name: ls.name }))))._tag).toBe('Conflict');
      });
    });

    describe('ProjectRepository: deleting a project', () => {
      const aFullProject = (owner: UserId) => storeAFullProject(r, owner);
      const recordsOf = async (run: Run) =>
        Promise.all(
          (['traces', 'spans', 'sessions'] as const).map(async (scope) =>
            (await right(r.logRecords.search({ projectId: run.projectId, runId: run.id, scope, filters: [], sort: null, page: { startingToken: 0, limit: 100 }, maxBytes: 1 << 30, maxMs: 60_000 }))).items.length,
          ),
        );
      /** Everything the ports show of a project and of the given runs of it. */
      const whatRemains = async (project: Project, runs: ReadonlyArray<Run>) => ({
        project: await right(r.projects.findById(project.id)),
        listed: (await right(r.projects.listByOwner(project.createdBy, {}))).filter((p) => p.id === project.id),
        runsByKind: await Promise.all((['log_stream', 'experiment', 'metrics_testing'] as const).map((kind) => right(r.runs.listInProject(project.id, kind)))),
        runs: await Promise.all(
          runs.map(async (run) => ({
            run: await right(r.runs.findInProject(project.id, run.id)),
            records: await recordsOf(run),
            columns: await right(r.logRecords.presentColumns(run.id)),
            insights: await right(r.insights.find(run.id)),
            scorers: await right(r.runScorers.find(run.id)),
          })),
        ),
      });
      const nothingOf = (runs: ReadonlyArray<Run>) => ({
        project: O.none,
        listed: [],
        runsByKind: [[], [], []],
        runs: runs.map(() => ({ run: O.none, records: [0, 0, 0], columns: new Set(), insights: O.none, scorers: O.none })),
      });

      const retiredAt = at('2026-05-01T00:00:00.000Z');
      const purgeAll = (id: ProjectId, limit = 2) => purgeRetired(r.projects, id, limit);
      /** The owner's reads of the project: gone once retired, before any purge. */
      const seen = async (project: Project) => ({
        project: await right(r.projects.findById(project.id)),
        listed: (await right(r.projects.listByOwner(project.createdBy, {}))).filter((p) => p.id === project.id),
      });
      const unseen = { project: O.none, listed: [] };

      it('retires the owner’s project at once, then purges its runs and everything under them in steps, and nothing of any other project', async () => {
        const u = await someUser();
        const doomed = await aFullProject(u.id);
        const kept = await aFullProject(u.id);
        const theirs = await aFullProject((await someUser()).id);
        const keptBefore = await whatRemains(kept.project, kept.runs);
        const theirsBefore = await whatRemains(theirs.project, theirs.runs);
        expect(keptBefore.runs.map((x) => x.records)).toEqual([[1, 1, 1], [1, 1, 1], [1, 1, 1]]);

        expect(await right(r.projects.retire(u.id, doomed.project.id, retiredAt))).toEqual(doomed.project);
        expect(await seen(doomed.project)).toEqual(unseen);
        expect(await right(r.projects.retired(100))).toContain(doomed.project.id);
        // 9 records in steps of 2: five steps of records, the last taking the runs and the project with it.
        expect(await purgeAll(doomed.project.id)).toEqual({ runs: 3, records: 9, steps: expect.any(Number) });
        expect(await whatRemains(doomed.project, doomed.runs)).toEqual(nothingOf(doomed.runs));
        expect(await right(r.projects.retired(100))).not.toContain(doomed.project.id);
        expect(await whatRemains(kept.project, kept.runs)).toEqual(keptBefore);
        expect(await whatRemains(theirs.project, theirs.runs)).toEqual(theirsBefore);
        // Scorers are their owner's, not the project's.
        expect(await right(r.scorers.findById(doomed.scorer.id))).toEqual(O.some(doomed.scorer));
      });

      it('answers NotFound for another owner’s project, an unknown id and a project retired already; purges nothing of a live project', async () => {
        const u = await someUser();
        const { project, runs } = await aFullProject(u.id);
        const before = await whatRemains(project, runs);
        const other = await someUser();
        expect(await left(r.projects.retire(other.id, project.id, retiredAt))).toEqual({ _tag: 'NotFound', entity: 'project', id: project.id });
        expect((await left(r.projects.retire(u.id, asId<ProjectId>(randomUUID()), retiredAt)))._tag).toBe('NotFound');
        expect(await right(r.projects.purgeStep(project.id, 1_000))).toEqual({ runs: 0, records: 0, finished: true });
        expect(await whatRemains(project, runs)).toEqual(before);
        await right(r.projects.retire(u.id, project.id, retiredAt));
        expect((await left(r.projects.retire(u.id, project.id, retiredAt)))._tag).toBe('NotFound');
        await purgeAll(project.id);
        expect((await left(r.projects.retire(u.id, project.id, retiredAt)))._tag).toBe('NotFound');
        expect(await right(r.projects.purgeStep(project.id, 1_000))).toEqual({ runs: 0, records: 0, finished: true });
      });

      it('frees the project’s name once retired, and its runs’ names go with it', async () => {
        const u = await someUser();
        const { project, runs } = await aFullProject(u.id);
        await right(r.projects.retire(u.id, project.id, retiredAt));
        const again = await right(r.projects.insert(aProject(u.id, { name: project.name })));
        const run = await right(r.runs.insert(aRun(again, { name: runs[0]!.name })));
        expect(await right(r.projects.listByOwner(u.id, { name: project.name }))).toEqual([again]);
        await purgeAll(project.id);
        expect(await right(r.projects.listByOwner(u.id, { name: project.name }))).toEqual([again]);
        expect(await right(r.runs.listInProject(again.id, 'log_stream'))).toEqual([run]);
        expect(await recordsOf(run)).toEqual([0, 0, 0]);
      });

      it('refuses a write under a retired project or one of its runs with NotFound, before and after the purge, and stores nothing of it', async () => {
        const u = await someUser();
        const { project, runs, scorer } = await aFullProject(u.id);
        const [run] = runs as [Run];
        const before = await whatRemains(project, [run]);
        await right(r.projects.retire(u.id, project.id, retiredAt));
        const refusals = async () => {
          const late = aRun(project);
          expect(await left(r.runs.insert(late))).toEqual({ _tag: 'NotFound', entity: 'project', id: project.id });
          expect(await left(r.logRecords.ingestIntoNewRun(late, [aRecord(late)], ['input']))).toEqual({ _tag: 'NotFound', entity: 'project', id: project.id });
          expect(await left(r.logRecords.ingest(run.id, [aRecord(run)], ['input']))).toEqual({ _tag: 'NotFound', entity: 'run', id: run.id });
          expect(await left(r.insights.replace({ runId: run.id, insights: { logstream: { enabled: false, startTime: null } }, updatedAt: at('2026-05-02T00:00:00.000Z') }))).toEqual({ _tag: 'NotFound', entity: 'run', id: run.id });
          expect(await left(r.runScorers.replace({ runId: run.id, scorers: [{ scorerId: scorer.id, version: 1 }], updatedAt: at('2026-05-02T00:00:00.000Z') }))).toEqual({ _tag: 'NotFound', entity: 'run', id: run.id });
          return late;
        };
        const late = await refusals();
        // Not purged yet: what the run held is as it was (the refused writes stored nothing), but for the project's own reads.
        expect((await whatRemains(project, [run, late])).runs).toEqual([before.runs[0], nothingOf([late]).runs[0]]);
        await purgeAll(project.id);
        const later = await refusals();
        expect(await whatRemains(project, [...runs, late, later])).toEqual(nothingOf([...runs, late, later]));
      });

      it('leaves nothing of writes racing the retirement: each is stored and purged, or refused', async () => {
        const u = await someUser();
        const { project, runs } = await aFullProject(u.id);
        const [stream] = runs as [Run];
        const newRuns = Array.from({ length: 6 }, (_, i) => aRun(project, { kind: i % 2 ? 'experiment' : 'log_stream' }));
        const writes = (from: number, to: number): Array<Promise<E.Either<DomainError, unknown>>> =>
          Array.from({ length: to - from }, (_, k) => {
            const i = from + k;
            switch (i % 4) {
              case 0:
                return r.runs.insert(newRuns[i / 4]!)();
              case 1:
                return r.logRecords.ingest(stream.id, [aRecord(stream), aRecord(stream, { type: 'session', traceId: null })], ['tags'])();
              case 2:
                return r.insights.replace({ runId: stream.id, insights: { logstream: { enabled: i % 3 === 0, startTime: null } }, updatedAt: at('2026-05-03T00:00:00.000Z') })();
              default:
                return r.runScorers.replace({ runId: stream.id, scorers: [], updatedAt: at('2026-05-03T00:00:00.000Z') })();
            }
          });
        // Writes on either side of the retirement, all started before any is answered.
        const outcomes = await Promise.all([...writes(0, 12), r.projects.retire(u.id, project.id, retiredAt)(), ...writes(12, 24)]);
        const retirement = outcomes[12]!;
        expect(E.isRight(retirement)).toBe(true);
        for (const [i, outcome] of outcomes.entries())
          if (i !== 12 && E.isLeft(outcome)) expect([i, (outcome.left as DomainError)._tag]).toEqual([i, 'NotFound']);
        await purgeAll(project.id);
        expect(await whatRemains(project, [...runs, ...newRuns])).toEqual(nothingOf([...runs, ...newRuns]));
      });
    });

    describe('InsightsRepository', () => {
      it('answers none before anything is stored, then replaces whole', async () => {
        const u = await someUser();
        const run = await right(r.runs.insert(aRun(await right(r.projects.insert(aProject(u.id))))));
        expect(await right(r.insights.find(run.id))).toEqual(O.none);
        const first = { runId: run.id, insights: { logstream: { enabled: true, startTime: at('2026-03-01T08:30:00.250Z') } }, updatedAt: at('2026-03-02T00:00:00.001Z') };
        await right(r.insights.replace(first));
        expect(await right(r.insights.find(run.id))).toEqual(O.some(first));
        const second = { runId: run.id, insights: { logstream: { enabled: false, startTime: null } }, updatedAt: at('2026-03-03T00:00:00.002Z') };
        await right(r.insights.replace(second));
        expect(await right(r.insights.find(run.id))).toEqual(O.some(second));
      });
    });

    describe('IntegrationRepository', () => {
      it('creates on first upsert, then updates the same record keeping id and createdAt', async () => {
        const u = await someUser();
        const first = anIntegration(u.id);
        expect(await right(r.integrations.findByOwner(u.id, 'gateway'))).toEqual(O.none);
        expect(await right(r.integrations.upsert(first))).toEqual(first);
        const later = anIntegration(u.id, {
          createdAt: at('2026-09-09T09:09:09.999Z'),
          updatedAt: at('2026-09-09T09:09:09.999Z'),
          settings: { endpoint: 'https://other.example.com/x', use_case: 'SEARCH' },
          sealedSecret: 'v1.b.c.d',
        });
        const stored = await right(r.integrations.upsert(later));
        expect(stored).toEqual({ ...later, id: first.id, createdAt: first.createdAt });
        expect(await right(r.integrations.findByOwner(u.id, 'gateway'))).toEqual(O.some(stored));
        expect(await right(r.integrations.findByOwner(u.id, 'openai'))).toEqual(O.none);
      });
      it('keeps one record per owner and provider under concurrent first upserts', async () => {
        const u = await someUser();
        const results = await Promise.all(Array.from({ length: 5 }, () => right(r.integrations.upsert(anIntegration(u.id)))));
        expect(new Set(results.map((x) => x.id)).size).toBe(1);
      });
      it('pages through every owner’s integrations in order of id, each once', async () => {
        const mine = await Promise.all(
          Array.from({ length: 5 }, async () => right(r.integrations.upsert(anIntegration((await someUser()).id)))),
        );
        const seen: Integration[] = [];
        let after: IntegrationId | undefined;
        for (;;) {
          const page = await right(r.integrations.page(after, 2));
          expect(page.length).toBeLessThanOrEqual(2);
          const last = page[page.length - 1];
          if (last === undefined) break;
          seen.push(...page);
          after = last.id;
        }
        const ids = seen.map((i) => i.id);
        expect(ids).toEqual([...ids].sort());
        expect(new Set(ids).size).toBe(ids.length);
        for (const i of mine) expect(seen).toContainEqual(i);
        // From the middle: only what comes after.
        const middle = [...mine].sort((a, b) => (a.id < b.id ? -1 : 1))[2]!;
        const rest = await right(r.integrations.page(middle.id, 1_000));
        expect(rest.every((i) => i.id > middle.id)).toBe(true);
        expect(rest.map((i) => i.id)).toEqual(ids.filter((id) => id > middle.id));
      });
      it('replaces a sealed secret only from the one stored, keeping updatedAt (a rotation of the master key)', async () => {
        const u = await someUser();
        const stored = await right(r.integrations.upsert(anIntegration(u.id)));
        expect(await right(r.integrations.replaceSecret(stored.id, 'v3.not.its.secret', 'v3.x.y.z'))).toBe(false);
        expect(await right(r.integrations.findByOwner(u.id, 'gateway'))).toEqual(O.some(stored));
        expect(await right(r.integrations.replaceSecret(stored.id, stored.sealedSecret, 'v3.a.b.c'))).toBe(true);
        expect(await right(r.integrations.findByOwner(u.id, 'gateway'))).toEqual(O.some({ ...stored, sealedSecret: 'v3.a.b.c' }));
        // A second pass from the secret it replaced changes nothing, nor does one for an id not there.
        expect(await right(r.integrations.replaceSecret(stored.id, stored.sealedSecret, 'v3.d.e.f'))).toBe(false);
        expect(await right(r.integrations.replaceSecret(asId<IntegrationId>(randomUUID()), stored.sealedSecret, 'v3.d.e.f'))).toBe(false);
        expect(await right(r.integrations.findByOwner(u.id, 'gateway'))).toEqual(O.some({ ...stored, sealedSecret: 'v3.a.b.c' }));
        // The stored secret, to itself: true (matched, not changed).
        expect(await right(r.integrations.replaceSecret(stored.id, 'v3.a.b.c', 'v3.a.b.c'))).toBe(true);
      });
    });

    describe('ScorerRepository', () => {
      it('inserts, finds one and many, lists the owner’s oldest first', async () => {
        const u = await someUser();
        const a = aScorer(u.id, { createdAt: at('2026-01-01T00:00:00.000Z') });
        const b = aScorer(u.id, { createdAt: at('2026-01-02T00:00:00.000Z'), display: {}, defaults: {}, tags: [] });
        await right(r.scorers.insert(b));
        await right(r.scorers.insert(a));
        expect(await right(r.scorers.findById(a.id))).toEqual(O.some(a));
        expect(await right(r.scorers.findById(b.id))).toEqual(O.some(b));
        expect(await right(r.scorers.listByOwner(u.id))).toEqual([a, b]);
        const many = await right(r.scorers.findManyByIds([b.id, a.id, aScorer(u.id).id]));
        expect([...many].sort((x, y) => x.id.localeCompare(y.id))).toEqual([a, b].sort((x, y) => x.id.localeCompare(y.id)));
        expect(await right(r.scorers.findManyByIds([]))).toEqual([]);
      });
      it('refuses a second scorer of the same name for one owner', async () => {
        const u = await someUser();
        const s = await right(r.scorers.insert(aScorer(u.id)));
        expect((await left(r.scorers.insert(aScorer(u.id, { name: s.name }))))._tag).toBe('Conflict');
      });
    });

    describe('ScorerVersionRepository', () => {
      it('numbers versions 1, 2, 3 and round-trips each kind whole', async () => {
        const s = await right(r.scorers.insert(aScorer((await someUser()).id)));
        const v1 = await right(r.scorerVersions.appendNext(s.id, (n) => anLlmVersion(s, n)));
        const v2 = await right(r.scorerVersions.appendNext(s.id, (n) => aCodeVersion(s, n)));
        const v3 = await right(r.scorerVersions.appendNext(s.id, (n) => aLunaVersion(s, n)));
        expect([v1.version, v2.version, v3.version]).toEqual([1, 2, 3]);
        expect(await right(r.scorerVersions.findByNumber(s.id, 1))).toEqual(O.some(v1));
        expect(await right(r.scorerVersions.findByNumber(s.id, 2))).toEqual(O.some(v2));
        expect(await right(r.scorerVersions.findByNumber(s.id, 3))).toEqual(O.some(v3));
        expect(await right(r.scorerVersions.findByNumber(s.id, 4))).toEqual(O.none);
      });
      it('keeps a response schema and a vocabulary whatever their keys, and any text, as sent', async () => {
        const s = await right(r.scorers.insert(aScorer((await someUser()).id)));
        // The client's JSON: an object shaped like a DBRef (at the top and deep inside), keys with $, a
        // dot or a NUL, a member named _bsontype, half of a surrogate pair in a key and in a value.
        const shapes = { $ref: 'users', $id: 1, $db: 'app', nested: [{ $ref: 'a', $id: { 'c\u0000d': 2, 'e.f': '$' } }], _bsontype: 'ObjectId', 'cut\uDC00': 'x\uD800' };
        const cut = 'cut \uD83D in half';
        const llm = anLlmVersion(s, 0);
        const template = { ...llm.chainPollTemplate!, template: cut, responseSchema: shapes };
        const luna = aLunaVersion(s, 0);
        const v1 = await right(r.scorerVersions.appendNext(s.id, (n) => ({ ...llm, version: n, chainPollTemplate: template, generatedScorer: { ...llm.generatedScorer!, instructions: cut, chainPollTemplate: template } })));
        const v2 = await right(r.scorerVersions.appendNext(s.id, (n) => ({ ...luna, version: n, finetunedScorer: { ...luna.finetunedScorer!, prompt: cut, classNameToVocabIx: shapes } })));
        for (const v of [v1, v2]) {
          const read = await right(r.scorerVersions.findByNumber(s.id, v.version));
          expect(read).toEqual(O.some(v));
          expect(JSON.stringify(read)).toBe(JSON.stringify(O.some(v)));
        }
        expect(await right(r.scorerVersions.findLatestOfEach([s.id]))).toEqual(new Map([[s.id, v2]]));
      });
      it('pages by version ascending, telling whether more follow', async () => {
        const s = await right(r.scorers.insert(aScorer((await someUser()).id)));
        for (let i = 0; i < 5; i++) await right(r.scorerVersions.appendNext(s.id, (n) => anLlmVersion(s, n)));
        const versions = async (startingToken: number, limit: number) => {
          const { items: found, more } = await right(r.scorerVersions.listFrom(s.id, { startingToken, limit }, 1 << 30));
          return [found.map((v) => v.version), more];
        };
        expect(await versions(0, 2)).toEqual([[1, 2], true]);
        expect(await versions(2, 2)).toEqual([[3, 4], true]);
        expect(await versions(4, 2)).toEqual([[5], false]);
        expect(await versions(9, 2)).toEqual([[], false]);
        expect(await versions(0, 100)).toEqual([[1, 2, 3, 4, 5], false]);
      });
      // Bytes, not characters: 10,000 é take 20,000 bytes in UTF-8 (and in BSON).
      it.each([['x'.repeat(20_000)], ['é'.repeat(10_000)]])('ends a page of versions at its byte budget, always holding one (%#)', async (instructions) => {
        const s = await right(r.scorers.insert(aScorer((await someUser()).id)));
        for (let i = 0; i < 5; i++) await right(r.scorerVersions.appendNext(s.id, (n) => ({ ...anLlmVersion(s, n), instructions })));
        const versions = async (startingToken: number, maxBytes: number) => {
          const { items: found, more } = await right(r.scorerVersions.listFrom(s.id, { startingToken, limit: 4 }, maxBytes));
          return [found.map((v) => v.version), more];
        };
        // Each version stores a little over 20,000 bytes.
        expect(await versions(0, 30_000)).toEqual([[1, 2], true]);
        expect(await versions(2, 30_000)).toEqual([[3, 4], true]);
        expect(await versions(4, 30_000)).toEqual([[5], false]);
        expect(await versions(0, 1)).toEqual([[1], true]);
      });
      it('finds the latest, overall and of one kind', async () => {
        const s = await right(r.scorers.insert(aScorer((await someUser()).id)));
        expect(await right(r.scorerVersions.findLatest(s.id))).toEqual(O.none);
        await right(r.scorerVersions.appendNext(s.id, (n) => aCodeVersion(s, n)));
        const code2 = await right(r.scorerVersions.appendNext(s.id, (n) => aCodeVersion(s, n)));
        const llm = await right(r.scorerVersions.appendNext(s.id, (n) => anLlmVersion(s, n)));
        expect(await right(r.scorerVersions.findLatest(s.id))).toEqual(O.some(llm));
        expect(await right(r.scorerVersions.findLatest(s.id, 'code'))).toEqual(O.some(code2));
        expect(await right(r.scorerVersions.findLatest(s.id, 'luna'))).toEqual(O.none);
      });
      it('finds the latest of each of several scorers at once, leaving out those without versions', async () => {
        const u = await someUser();
        const [a, b, none] = [await right(r.scorers.insert(aScorer(u.id))), await right(r.scorers.insert(aScorer(u.id))), await right(r.scorers.insert(aScorer(u.id)))];
        await right(r.scorerVersions.appendNext(a.id, (n) => anLlmVersion(a, n)));
        const a2 = await right(r.scorerVersions.appendNext(a.id, (n) => aCodeVersion(a, n)));
        const b1 = await right(r.scorerVersions.appendNext(b.id, (n) => anLlmVersion(b, n)));
        expect(await right(r.scorerVersions.findLatestOfEach([a.id, b.id, none.id]))).toEqual(new Map([[a.id, a2], [b.id, b1]]));
        expect(await right(r.scorerVersions.findLatestOfEach([]))).toEqual(new Map());
      });
      it('gives concurrent creations distinct consecutive numbers', async () => {
        const s = await right(r.scorers.insert(aScorer((await someUser()).id)));
        const n = options.concurrentAppends ?? 10;
        const made = await Promise.all(Array.from({ length: n }, () => right(r.scorerVersions.appendNext(s.id, (v) => anLlmVersion(s, v)))));
        expect(made.map((v) => v.version).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
      });
      it('keeps each scorer’s numbering separate', async () => {
        const u = await someUser();
        const a = await right(r.scorers.insert(aScorer(u.id)));
        const b = await right(r.scorers.insert(aScorer(u.id)));
        await right(r.scorerVersions.appendNext(a.id, (n) => anLlmVersion(a, n)));
        expect((await right(r.scorerVersions.appendNext(b.id, (n) => anLlmVersion(b, n)))).version).toBe(1);
      });
    });

    describe('LogRecordRepository', () => {
      const aRunWithRecords = async () => {
        const u = await someUser();
        return right(r.runs.insert(aRun(await right(r.projects.insert(aProject(u.id))))));
      };
      const page = { startingToken: 0, limit: 100 };
      const query = (run: { id: RunId; projectId: ProjectId }, over: Partial<RecordQuery> = {}): RecordQuery => ({
        projectId: run.projectId,
        runId: run.id,
        scope: 'traces',
        filters: [],
        sort: null,
        page,
        maxBytes: 1 << 30,
        maxMs: 60_000,
        ...over,
      });
      /** The records of one page. */
      const found = async (q: RecordQuery) => (await right(r.logRecords.search(q))).items;

      it('stores records whole and finds traces and spans apart, newest first', async () => {
        const run = await aRunWithRecords();
        const trace = aRecord(run, { createdAt: at('2026-01-01T00:00:00.001Z'), hasChildren: true });
        const span = aRecord(run, {
          type: 'llm',
          traceId: trace.id,
          parentId: trace.id,
          createdAt: at('2026-01-01T00:00:00.002Z'),
          attributes: { model: 'gpt-4o-mini', temperature: 0.5, tools: '[]' },
          output: { role: 'assistant', content: 'Hi' },
        });
        const later = aRecord(run, { createdAt: at('2026-01-02T00:00:00.000Z') });
        const session = aRecord(run, { type: 'session', traceId: null, createdAt: at('2026-01-03T00:00:00.000Z') });
        await right(r.logRecords.ingest(run.id, [trace, span, later, session], ['input', 'model']));
        expect(await found(query(run))).toEqual([later, trace]);
        expect(await found(query(run, { scope: 'spans' }))).toEqual([span]);
        expect(await found(query(run, { scope: 'sessions' }))).toEqual([session]);
      });

      it('keeps any JSON input and output, and metadata whatever its keys, as sent, and searches the text of input and output (a string itself, anything else its JSON)', async () => {
        const run = await aRunWithRecords();
        let deep: Json = 'leaf';
        for (let i = 0; i < 90; i++) deep = i % 2 ? [deep] : { v: deep };
        const values: ReadonlyArray<readonly [string, Json]> = [
          ['dbref', { $ref: 'users', $id: 1, $db: 'app' }],
          ['keys', { $set: { 'a.b': 1, 'c\u0000d': 2 }, _bsontype: 'ObjectId', list: [{ $ref: 'x', $id: 'y' }] }],
          ['cut', 'a\uD800b'],
          ['cut-in-json', ['\uDFFF', { text: 'x\uD83D' }]],
          ['deep', deep],
        ];
        const recs = values.map(([name, value]) => aRecord(run, { name, input: value, output: { value } }));
        // Metadata keys are the client's too.
        recs.push(aRecord(run, { name: 'metadata', userMetadata: { $ref: 'users', $id: 'u1' }, datasetMetadata: { 'a\u0000b': 'x\uD800', _bsontype: 'ObjectId' } }));
        await right(r.logRecords.ingest(run.id, recs, ['input', 'output']));
        const sorted = await found(query(run, { sort: { columnId: 'name', ascending: true } }));
        expect(sorted).toEqual([...recs].sort((x, y) => (x.name < y.name ? -1 : 1)));
        const names = async (filter: RecordQuery['filters'][number]) =>
          (await found(query(run, { filters: [filter], sort: { columnId: 'name', ascending: true } }))).map((x) => x.name);
        expect(await names({ type: 'text', columnId: 'input', operator: 'eq', value: '{"$ref":"users","$id":1,"$db":"app"}', caseSensitive: true })).toEqual(['dbref']);
        expect(await names({ type: 'text', columnId: 'input', operator: 'contains', value: '"a.b":1', caseSensitive: false })).toEqual(['keys']);
        expect(await names({ type: 'text', columnId: 'output', operator: 'contains', value: '{"value":{"$set"', caseSensitive: true })).toEqual(['keys']);
        expect(await names({ type: 'text', columnId: 'input', operator: 'eq', value: 'a\uD800b', caseSensitive: true })).toEqual(['cut']);
      });

      it('refuses a record past the engine’s limit on one stored record (Invalid, nothing of the ingest written), or stores it whole', async () => {
        const MiB = 1024 * 1024;
        const large: ReadonlyArray<readonly [string, Json]> = [
          // Stored twice on MongoDB (as text and as its JSON text): 18 MiB, past the driver's 17 MiB buffer.
          ['a 9 MiB string holding half of a surrogate pair', `\uD800${'x'.repeat(9 * MiB)}`],
          // Past 16 MiB, within the driver's buffer: the driver's own size check.
          ['16.5 MiB', 'x'.repeat(16.5 * MiB)],
          ['17.5 MiB', 'x'.repeat(17.5 * MiB)],
        ];
        for (const [what, input] of large) {
          const run = await aRunWithRecords();
          const small = aRecord(run, { name: 'small' });
          const big = aRecord(run, { name: 'big', input });
          const outcome = await r.logRecords.ingest(run.id, [small, big], ['input'])();
          if (options.recordLimit === undefined) {
            expect([what, E.isRight(outcome)]).toEqual([what, true]);
            expect(await found(query(run, { sort: { columnId: 'name', ascending: true } }))).toEqual([big, small]);
          } else {
            expect([what, outcome]).toEqual([what, E.left({ _tag: 'Invalid', path: [], message: 'a record is larger than MongoDB’s 16 MiB document limit' })]);
            expect([what, await found(query(run))]).toEqual([what, []]);
            expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set());
          }
        }
      });

      it('stores a new run with its records in one write, and neither when the run’s name is taken', async () => {
        const u = await someUser();
        const project = await right(r.projects.insert(aProject(u.id)));
        const run = aRun(project, { name: 'created-with-its-records' });
        const trace = aRecord(run, { hasChildren: true });
        const span = aRecord(run, { type: 'llm', traceId: trace.id, parentId: trace.id });
        await right(r.logRecords.ingestIntoNewRun(run, [trace, span], ['input', 'model']));
        expect(await right(r.runs.findInProject(project.id, run.id))).toEqual(O.some(run));
        expect(await found(query(run))).toEqual([trace]);
        expect(await found(query(run, { scope: 'spans' }))).toEqual([span]);
        expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set(['input', 'model']));
        // Another writer's run of that name came first: Conflict, and nothing of this one is stored.
        const rival = aRun(project, { name: run.name });
        expect(await left(r.logRecords.ingestIntoNewRun(rival, [aRecord(rival)], ['tags']))).toMatchObject({ _tag: 'Conflict' });
        expect(await right(r.runs.listInProject(project.id, 'log_stream'))).toEqual([run]);
        expect(await found(query(rival))).toEqual([]);
        expect(await right(r.logRecords.presentColumns(rival.id))).toEqual(new Set());
        // Racing to create one run: one stores it, the others are told Conflict and store nothing.
        const racers = Array.from({ length: 4 }, () => aRun(project, { name: 'raced' }));
        const outcomes = await Promise.all(racers.map((x) => r.logRecords.ingestIntoNewRun(x, [aRecord(x)], [])()));
        expect(outcomes.map((o) => (E.isRight(o) ? 'stored' : o.left._tag)).sort()).toEqual(['Conflict', 'Conflict', 'Conflict', 'stored']);
        const winner = racers[outcomes.findIndex(E.isRight)]!;
        expect(await right(r.runs.listInProject(project.id, 'log_stream', 'raced'))).toEqual([winner]);
        for (const x of racers) expect((await found(query(x))).length).toBe(x === winner ? 1 : 0);
        // A project that does not exist: NotFound, and no run.
        const orphan = aRun(aProject(u.id));
        expect(await left(r.logRecords.ingestIntoNewRun(orphan, [aRecord(orphan)], []))).toMatchObject({ _tag: 'NotFound', entity: 'project' });
        expect(await right(r.runs.findInProject(orphan.projectId, orphan.id))).toEqual(O.none);
      });

      it('keeps the run’s column presence as a growing set', async () => {
        const run = await aRunWithRecords();
        expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set());
        await right(r.logRecords.ingest(run.id, [aRecord(run)], ['input', 'metrics/toxicity']));
        await right(r.logRecords.ingest(run.id, [aRecord(run)], ['input', 'tags']));
        expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set(['input', 'metrics/toxicity', 'tags']));
      });

      it('replaces a record sent again in the same run, and keeps the same id in another run a record of its own', async () => {
        const run = await aRunWithRecords();
        const other = await aRunWithRecords();
        const rec = aRecord(run);
        await right(r.logRecords.ingest(run.id, [rec], []));
        const again = { ...rec, output: 'changed' };
        await right(r.logRecords.ingest(run.id, [again], []));
        expect(await found(query(run))).toEqual([again]);
        // Another run (another user's, say) may hold the same id: neither sees nor touches the other.
        const theirs = { ...rec, runId: other.id, projectId: other.projectId, output: 'theirs' };
        await right(r.logRecords.ingest(other.id, [theirs], ['name']));
        expect(await found(query(other))).toEqual([theirs]);
        expect(await found(query(run))).toEqual([again]);
        expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set());
      });

      it('refuses a trace or span sent under a stored session’s id, and a session under a trace’s or span’s (Conflict), writing nothing of the ingest', async () => {
        const run = await aRunWithRecords();
        const session = aRecord(run, { type: 'session', traceId: null });
        const trace = aRecord(run, { type: 'trace' });
        const span = aRecord(run, { type: 'llm', traceId: trace.id, parentId: trace.id });
        await right(r.logRecords.ingest(run.id, [session, trace, span], []));
        const bystander = aRecord(run, { name: 'bystander' });
        for (const [clashing, was, is] of [
          [{ ...session, type: 'trace', traceId: session.id }, 'session', 'trace'],
          [{ ...session, type: 'llm', traceId: trace.id, parentId: trace.id }, 'session', 'span'],
          [{ ...trace, type: 'session', traceId: null }, 'trace', 'session'],
          [{ ...span, type: 'session', traceId: null, parentId: null }, 'span', 'session'],
        ] as const) {
          const refused = await left(r.logRecords.ingest(run.id, [bystander, clashing], ['name']));
          expect(refused).toEqual({ _tag: 'Conflict', message: `record ${clashing.id} is a ${was} of this run: a ${is} cannot take its id` });
        }
        const everything = async () => (await Promise.all((['traces', 'spans', 'sessions'] as const).map((scope) => found(query(run, { scope }))))).flat();
        expect(await everything()).toEqual(expect.arrayContaining([session, { ...trace, hasChildren: true }, span]));
        expect(await everything()).toHaveLength(3);
        expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set());
        // A span sent again may come back as a span of another type (or a trace: the next case).
        const retyped = { ...span, type: 'tool' as const };
        await right(r.logRecords.ingest(run.id, [retyped], []));
        expect(await found(query(run, { scope: 'spans' }))).toEqual([retyped]);
      });

      it('keeps a trace record made from an OTLP root span over one from a root that started later, whichever comes first, and replaces it with its own retry', async () => {
        const run = await aRunWithRecords();
        const name = async () => (await found(query(run))).map((x) => [x.name, x.otelRootKey]);
        const earlier = aRecord(run, { name: 'earlier', hasChildren: true, otelRootKey: '01700000000000000000/1111111111111111' });
        const later = { ...earlier, name: 'later', otelRootKey: '01700000000000000001/0000000000000001' };
        await right(r.logRecords.ingest(run.id, [later], []));
        expect(await name()).toEqual([['later', later.otelRootKey]]);
        await right(r.logRecords.ingest(run.id, [earlier], []));
        expect(await name()).toEqual([['earlier', earlier.otelRootKey]]);
        await right(r.logRecords.ingest(run.id, [later], []));
        expect(await found(query(run))).toEqual([earlier]);
        // Its own retry replaces it, and so does a record of that id without a key (the record API's).
        const retried = { ...earlier, output: 'sent again' };
        await right(r.logRecords.ingest(run.id, [retried], []));
        expect(await found(query(run))).toEqual([retried]);
        const { otelRootKey: _, ...fromApi } = { ...earlier, name: 'from the API' };
        await right(r.logRecords.ingest(run.id, [fromApi], []));
        expect(await found(query(run))).toEqual([fromApi]);
        // A stored record without a key (the API's, or one stored before keys were) is replaced as any other.
        await right(r.logRecords.ingest(run.id, [later], []));
        expect(await found(query(run))).toEqual([later]);
      });

      it('links parents and children within their run only', async () => {
        const run = await aRunWithRecords();
        const other = await aRunWithRecords();
        const parent = aRecord(run, { name: 'parent' });
        const childOfAbsent = aRecord(run, { type: 'llm', name: 'orphan', traceId: parent.id, parentId: 'not-in-this-run' });
        await right(r.logRecords.ingest(run.id, [parent, childOfAbsent], []));
        // A child naming that parent from another run, and a record there with the id the orphan names.
        await right(r.logRecords.ingest(other.id, [aRecord(other, { type: 'llm', traceId: parent.id, parentId: parent.id })], []));
        await right(r.logRecords.ingest(other.id, [aRecord(other, { id: 'not-in-this-run', name: 'namesake' })], []));
        expect((await found(query(run))).map((x) => [x.name, x.hasChildren])).toEqual([['parent', false]]);
        expect((await found(query(other))).map((x) => [x.name, x.hasChildren])).toEqual([['namesake', false]]);
      });

      it('keeps hasChildren true whichever of parent and child arrives first', async () => {
        const run = await aRunWithRecords();
        const parentFirst = aRecord(run, { name: 'parent-first' });
        await right(r.logRecords.ingest(run.id, [parentFirst], []));
        await right(r.logRecords.ingest(run.id, [aRecord(run, { type: 'tool', traceId: parentFirst.id, parentId: parentFirst.id })], []));
        const childFirstParent = aRecord(run, { name: 'child-first' });
        await right(r.logRecords.ingest(run.id, [aRecord(run, { type: 'llm', traceId: childFirstParent.id, parentId: childFirstParent.id })], []));
        await right(r.logRecords.ingest(run.id, [childFirstParent], []));
        const lonely = aRecord(run, { name: 'lonely' });
        await right(r.logRecords.ingest(run.id, [lonely], []));
        const traces = await found(query(run, { sort: { columnId: 'name', ascending: true } }));
        expect(traces.map((t) => [t.name, t.hasChildren])).toEqual([['child-first', true], ['lonely', false], ['parent-first', true]]);
      });

      it('takes hasChildren from a parent whose last child is sent again under another parent, or none', async () => {
        const run = await aRunWithRecords();
        const [a, b, c] = ['a', 'b', 'c'].map((name) => aRecord(run, { name, hasChildren: true }));
        const moved = aRecord(run, { type: 'tool', name: 'moved', traceId: a!.id, parentId: a!.id });
        const stays = aRecord(run, { type: 'tool', name: 'stays', traceId: c!.id, parentId: c!.id });
        const alsoC = aRecord(run, { type: 'tool', name: 'also-c', traceId: c!.id, parentId: c!.id });
        await right(r.logRecords.ingest(run.id, [a!, moved, c!, stays, alsoC], []));
        // The span moves from a to b (sent again alone, a not), and one of c's two children becomes a root.
        await right(r.logRecords.ingest(run.id, [b!, { ...moved, traceId: b!.id, parentId: b!.id }, { ...alsoC, type: 'trace', traceId: alsoC.id, parentId: null }], []));
        const traces = await found(query(run, { sort: { columnId: 'name', ascending: true } }));
        expect(traces.map((t) => [t.name, t.hasChildren])).toEqual([['a', false], ['also-c', false], ['b', true], ['c', true]]);
      });

      it('stops a search that reads past its time budget with TimedOut, and searches on after it', async () => {
        const run = await aRunWithRecords();
        // Enough records for a no-match search to read for a while (on SQLite the budget is looked at
        // one row in 1,024); in batches, as ingest takes them.
        for (let batch = 0; batch < 5; batch++)
          await right(r.logRecords.ingest(run.id, Array.from({ length: 1000 }, (_, i) => aRecord(run, { name: `r${batch}-${i}` })), []));
        const nothing = [{ type: 'text', columnId: 'name', operator: 'contains', value: 'no such name', caseSensitive: false }] as const;
        for (const sort of [null, { columnId: 'status_code', ascending: true }]) {
          expect(await left(r.logRecords.search(query(run, { filters: nothing, sort, maxMs: 0 })))).toMatchObject({
            _tag: 'TimedOut',
            message: expect.stringContaining('Narrow it'),
          });
          // The same search with time to finish: nothing found, and nothing left over from the one stopped.
          expect(await found(query(run, { filters: nothing, sort }))).toEqual([]);
        }
        expect(await found(query(run, { filters: [{ type: 'text', columnId: 'name', operator: 'eq', value: 'r4-999', caseSensitive: true }] }))).toHaveLength(1);
      });

      it('filters by every filter type, sorts by a column, and pages with a stable order', async () => {
        const run = await aRunWithRecords();
        const recs = ['alpha', 'beta', 'gamma', 'delta'].map((name, i) =>
          aRecord(run, { name, statusCode: 200 + i, createdAt: at(`2026-03-0${i + 1}T00:00:00.000Z`), tags: i % 2 ? ['odd'] : ['even'], metrics: { score: i / 10 } }),
        );
        await right(r.logRecords.ingest(run.id, recs, []));
        const names = async (over: Partial<RecordQuery>) => (await found(query(run, { sort: { columnId: 'name', ascending: true }, ...over }))).map((x) => x.name);
        expect(await names({ filters: [{ type: 'text', columnId: 'name', operator: 'contains', value: 'LT', caseSensitive: false }] })).toEqual(['delta']);
        expect(await names({ filters: [{ type: 'text', columnId: 'name', operator: 'one_of', value: ['beta', 'GAMMA'], caseSensitive: false }] })).toEqual(['beta', 'gamma']);
        expect(await names({ filters: [{ type: 'text', columnId: 'name', operator: 'ne', value: 'beta', caseSensitive: true }] })).toEqual(['alpha', 'delta', 'gamma']);
        expect(await names({ filters: [{ type: 'number', columnId: 'status_code', operator: 'gt', value: 201 }] })).toEqual(['delta', 'gamma']);
        expect(await names({ filters: [{ type: 'number', columnId: 'metrics/score', operator: 'between', value: [0.1, 0.2] }] })).toEqual(['beta', 'gamma']);
        expect(await names({ filters: [{ type: 'date', columnId: 'created_at', operator: 'gte', value: at('2026-03-03T00:00:00.000Z') }] })).toEqual(['delta', 'gamma']);
        expect(await names({ filters: [{ type: 'id', columnId: 'id', operator: 'one_of', value: [recs[0]!.id, recs[3]!.id] }] })).toEqual(['alpha', 'delta']);
        expect(await names({ filters: [{ type: 'collection', columnId: 'tags', operator: 'contains', value: ['odd'] }] })).toEqual(['beta', 'delta']);
        expect(await names({ filters: [{ type: 'collection', columnId: 'tags', operator: 'not_in', value: ['odd'] }] })).toEqual(['alpha', 'gamma']);
        expect(await names({ filters: [{ type: 'boolean', columnId: 'is_complete', operator: 'eq', value: true }] })).toEqual(['alpha', 'beta', 'delta', 'gamma']);
        expect(await names({ sort: { columnId: 'status_code', ascending: false } })).toEqual(['delta', 'gamma', 'beta', 'alpha']);
        const pageOf = async (startingToken: number) => {
          const { items: records, more } = await right(r.logRecords.search(query(run, { page: { startingToken, limit: 2 } })));
          return [records.map((x) => x.name), more];
        };
        expect(await pageOf(0)).toEqual([['delta', 'gamma'], true]);
        expect(await pageOf(2)).toEqual([['beta', 'alpha'], false]);
        expect(await pageOf(4)).toEqual([[], false]);
      });
      it('keeps times to the microsecond and orders by them, in searches and keyset pages, the id breaking ties', async () => {
        const run = await aRunWithRecords();
        const ms = at('2026-04-01T00:00:00.123Z');
        // One millisecond, three microseconds, two records at the last: sent in another order.
        const recs = [999, 5, 5, 0].map((micros, i) => aRecord(run, { name: `u${i}`, createdAt: ms, createdAtMicros: micros }));
        await right(r.logRecords.ingest(run.id, recs, []));
        const byPlace = (x: LogRecord, y: LogRecord) => x.createdAtMicros - y.createdAtMicros || (x.id < y.id ? -1 : 1);
        const ascending = [...recs].sort(byPlace);
        expect(await found(query(run, { sort: { columnId: 'created_at', ascending: true } }))).toEqual(ascending);
        expect(await found(query(run))).toEqual([...ascending].reverse());
        const names: string[] = [];
        for (let after: RecordPosition | undefined; ; ) {
          const { items, more } = await right(r.logRecords.search(query(run, { sort: { columnId: 'created_at', ascending: true }, page: { startingToken: 0, limit: 1 }, ...(after ? { after } : {}) })));
          names.push(...items.map((x) => x.name));
          const last = items[items.length - 1];
          if (!more || !last || names.length > recs.length) break;
          after = { createdAt: last.createdAt, createdAtMicros: last.createdAtMicros, id: last.id };
        }
        expect(names).toEqual(ascending.map((x) => x.name));
      });
      it('pages by keyset in created_at order, the id breaking ties, either way', async () => {
        const run = await aRunWithRecords();
        // Three records share each time: a page that ends inside a tie starts the next one within it.
        const recs = Array.from({ length: 9 }, (_, i) => aRecord(run, { name: `k${i}`, createdAt: at(`2026-04-0${1 + Math.floor(i / 3)}T00:00:00.000Z`) }));
        await right(r.logRecords.ingest(run.id, recs, []));
        const byPlace = (x: LogRecord, y: LogRecord) => x.createdAt.getTime() - y.createdAt.getTime() || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
        const ascending = [...recs].sort(byPlace).map((x) => x.name);
        const readAll = async (sort: RecordQuery['sort'], limit: number) => {
          const names: string[][] = [];
          for (let after: RecordPosition | undefined; ; ) {
            const { items, more } = await right(r.logRecords.search(query(run, { sort, page: { startingToken: 0, limit }, ...(after ? { after } : {}) })));
            names.push(items.map((x) => x.name));
            const last = items[items.length - 1];
            if (!more || !last || names.length > recs.length) return names; // a page that does not move on ends it
            after = { createdAt: last.createdAt, createdAtMicros: last.createdAtMicros, id: last.id };
          }
        };
        expect(await readAll({ columnId: 'created_at', ascending: true }, 2)).toEqual([0, 2, 4, 6, 8].map((i) => ascending.slice(i, i + 2)));
        expect((await readAll({ columnId: 'created_at', ascending: true }, 4)).flat()).toEqual(ascending);
        // Descending, and unsorted (newest first) alike.
        expect((await readAll({ columnId: 'created_at', ascending: false }, 2)).flat()).toEqual([...ascending].reverse());
        expect((await readAll(null, 4)).flat()).toEqual([...ascending].reverse());
        // From the middle of a tie: the record's place, not its time, is where the page starts.
        const middle = [...recs].sort(byPlace)[4]!;
        const after = { createdAt: middle.createdAt, createdAtMicros: middle.createdAtMicros, id: middle.id };
        expect((await found(query(run, { sort: { columnId: 'created_at', ascending: true }, after }))).map((x) => x.name)).toEqual(ascending.slice(5));
        expect((await found(query(run, { sort: { columnId: 'created_at', ascending: true }, after, page: { startingToken: 2, limit: 2 } }))).map((x) => x.name)).toEqual(ascending.slice(7, 9));
      });
      it('orders records without the sorted value last either way, the id breaking ties', async () => {
        const run = await aRunWithRecords();
        const recs = [200, null, 500, null].map((statusCode, i) => aRecord(run, { name: `r${i}`, statusCode, metrics: statusCode === null ? {} : { 'v1.2 judge': statusCode / 1000 } }));
        await right(r.logRecords.ingest(run.id, recs, []));
        const names = async (columnId: string, ascending: boolean) =>
          (await found(query(run, { sort: { columnId, ascending } }))).map((x) => x.name);
        const missing = recs.filter((x) => x.statusCode === null).sort((x, y) => (x.id < y.id ? -1 : 1)).map((x) => x.name);
        expect(await names('status_code', true)).toEqual(['r0', 'r2', ...missing]);
        expect(await names('status_code', false)).toEqual(['r2', 'r0', ...[...missing].reverse()]);
        // A metric named as scorers may be named: with a dot and a space.
        expect(await names('metrics/v1.2 judge', true)).toEqual(['r0', 'r2', ...missing]);
      });

      it('keeps a missing value out of a number or date "ne", and in a text "ne"', async () => {
        const run = await aRunWithRecords();
        const recs = [200, null, 500].map((statusCode, i) =>
          aRecord(run, { name: `r${i}`, statusCode, updatedAt: statusCode === null ? null : at('2026-05-05T00:00:00.000Z'), externalId: statusCode === 500 ? 'X-1' : null }),
        );
        await right(r.logRecords.ingest(run.id, recs, []));
        const names = async (filter: RecordQuery['filters'][number]) =>
          (await found(query(run, { filters: [filter], sort: { columnId: 'name', ascending: true } }))).map((x) => x.name);
        expect(await names({ type: 'number', columnId: 'status_code', operator: 'ne', value: 200 })).toEqual(['r2']);
        expect(await names({ type: 'date', columnId: 'updated_at', operator: 'ne', value: at('2026-01-01T00:00:00.000Z') })).toEqual(['r0', 'r2']);
        expect(await names({ type: 'text', columnId: 'external_id', operator: 'ne', value: 'x-1', caseSensitive: false })).toEqual(['r0', 'r1']);
        expect(await names({ type: 'text', columnId: 'external_id', operator: 'ne', value: 'x-1', caseSensitive: true })).toEqual(['r0', 'r1', 'r2']);
      });

      it('matches text exactly: no trailing newline passes for the value, a metric name may hold a dot, a NUL is only a character', async () => {
        const run = await aRunWithRecords();
        const exact = aRecord(run, { name: 'exact', output: 'Hello', metrics: { 'v1.2 judge': 0.9, '$odd%name': 1, 'say "hi" \\ now': 2 } });
        const newline = aRecord(run, { name: 'newline', output: 'Hello\n', metrics: { 'v1.2 judge': 0.1 } });
        await right(r.logRecords.ingest(run.id, [exact, newline], []));
        const names = async (filter: RecordQuery['filters'][number]) =>
          (await found(query(run, { filters: [filter], sort: { columnId: 'name', ascending: true } }))).map((x) => x.name);
        expect(await names({ type: 'text', columnId: 'output', operator: 'eq', value: 'hello', caseSensitive: false })).toEqual(['exact']);
        expect(await names({ type: 'text', columnId: 'output', operator: 'one_of', value: ['HELLO'], caseSensitive: false })).toEqual(['exact']);
        expect(await names({ type: 'number', columnId: 'metrics/v1.2 judge', operator: 'gt', value: 0.5 })).toEqual(['exact']);
        expect(await names({ type: 'number', columnId: 'metrics/$odd%name', operator: 'eq', value: 1 })).toEqual(['exact']);
        expect(await names({ type: 'number', columnId: 'metrics/say "hi" \\ now', operator: 'eq', value: 2 })).toEqual(['exact']);
        // A metric filtered as text (a categorical scorer's) is its number's text, whether case counts or not.
        for (const caseSensitive of [true, false]) {
          expect(await names({ type: 'text', columnId: 'metrics/$odd%name', operator: 'eq', value: '1', caseSensitive })).toEqual(['exact']);
          expect(await names({ type: 'text', columnId: 'metrics/v1.2 judge', operator: 'not_in', value: ['0.9'], caseSensitive })).toEqual(['newline']);
        }
        expect(await names({ type: 'text', columnId: 'output', operator: 'contains', value: 'Hel\u0000', caseSensitive: false })).toEqual([]);
        expect(await names({ type: 'text', columnId: 'output', operator: 'eq', value: 'Hel\u0000', caseSensitive: false })).toEqual([]);
        // The names come back as they were sent.
        const [stored] = await found(query(run, { filters: [{ type: 'text', columnId: 'name', operator: 'eq', value: 'exact', caseSensitive: true }] }));
        expect(stored).toEqual(exact);
      });

      it('filters a metric as text by the digits of a whole number of any size, and takes a value starting with $ as text', async () => {
        const run = await aRunWithRecords();
        // 3000000000 is outside int32 (MongoDB's driver stores it as a double); 0.25 has two digits.
        const big = aRecord(run, { name: 'big', metrics: { judge: 3_000_000_000 } });
        const small = aRecord(run, { name: 'small', metrics: { judge: -7 } });
        const fraction = aRecord(run, { name: 'fraction', metrics: { judge: 0.25 } });
        await right(r.logRecords.ingest(run.id, [big, small, fraction], []));
        const names = async (operator: 'eq' | 'ne' | 'one_of' | 'not_in' | 'contains', value: string | string[]) =>
          (await found(query(run, { filters: [{ type: 'text', columnId: 'metrics/judge', operator, value, caseSensitive: true }], sort: { columnId: 'name', ascending: true } }))).map((x) => x.name);
        expect(await names('eq', '3000000000')).toEqual(['big']);
        expect(await names('one_of', ['-7', '0.25'])).toEqual(['fraction', 'small']);
        expect(await names('contains', '000000')).toEqual(['big']);
        // In a MongoDB expression a string starting with $ is a field path ($name, the record's name):
        // here it is only text, which no metric's text is.
        expect(await names('eq', '$name')).toEqual([]);
        expect(await names('one_of', ['$name', '$$ROOT', '$'])).toEqual([]);
        expect(await names('ne', '$name')).toEqual(['big', 'fraction', 'small']);
        expect(await names('not_in', ['$judge', '-7'])).toEqual(['big', 'fraction']);
      });

      it('keeps metrics whatever their names, _bsontype and __proto__ too, and filters and sorts by them', async () => {
        const run = await aRunWithRecords();
        const metrics = (json: string) => JSON.parse(json) as Record<string, number | null>;
        const one = aRecord(run, { name: 'one', metrics: metrics('{"_bsontype":1,"__proto__":2,"%5Fbsontype":3}') });
        const two = aRecord(run, { name: 'two', metrics: metrics('{"_bsontype":2,"__proto__":1}') });
        await right(r.logRecords.ingest(run.id, [one, two], []));
        const stored = await found(query(run, { sort: { columnId: 'name', ascending: true } }));
        expect(stored).toEqual([one, two]);
        expect(stored.map((x) => JSON.stringify(x.metrics))).toEqual([one, two].map((x) => JSON.stringify(x.metrics)));
        const names = async (filter: RecordQuery['filters'][number], columnId = 'name') =>
          (await found(query(run, { filters: [filter], sort: { columnId, ascending: true } }))).map((x) => x.name);
        expect(await names({ type: 'number', columnId: 'metrics/_bsontype', operator: 'eq', value: 1 })).toEqual(['one']);
        expect(await names({ type: 'number', columnId: 'metrics/__proto__', operator: 'eq', value: 1 })).toEqual(['two']);
        expect(await names({ type: 'number', columnId: 'metrics/%5Fbsontype', operator: 'gt', value: 0 })).toEqual(['one']);
        expect(await names({ type: 'text', columnId: 'metrics/_bsontype', operator: 'eq', value: '2', caseSensitive: true })).toEqual(['two']);
        expect(await names({ type: 'number', columnId: 'metrics/_bsontype', operator: 'gt', value: 0 }, 'metrics/_bsontype')).toEqual(['one', 'two']);
        expect(await names({ type: 'number', columnId: 'metrics/__proto__', operator: 'gt', value: 0 }, 'metrics/__proto__')).toEqual(['two', 'one']);
      });

      it('filters a metric holding numbers, labels, lists and booleans by type: numbers by number filters, labels (and numbers’ text) by text filters, labels and lists by collection filters, booleans by boolean filters', async () => {
        const run = await aRunWithRecords();
        const values: ReadonlyArray<readonly [string, MetricValue | undefined]> = [
          ['two', 2], ['half', 0.5], ['good', 'good'], ['Bad', 'Bad'], ['a', 'a'], ['list', ['a', 'b']], ['yes', true], ['no', false], ['none', undefined],
        ];
        await right(r.logRecords.ingest(run.id, values.map(([name, v]) => aRecord(run, { name, metrics: v === undefined ? {} : { judge: v } })), []));
        const names = async (filter: RecordQuery['filters'][number]) =>
          (await found(query(run, { filters: [filter], sort: { columnId: 'name', ascending: true } }))).map((x) => x.name);
        const column = 'metrics/judge';
        // Numbers alone: a label, a list or a boolean is not a number, whatever the operator.
        expect(await names({ type: 'number', columnId: column, operator: 'gt', value: 0 })).toEqual(['half', 'two']);
        expect(await names({ type: 'number', columnId: column, operator: 'eq', value: 1 })).toEqual([]);
        expect(await names({ type: 'number', columnId: column, operator: 'eq', value: 0 })).toEqual([]);
        expect(await names({ type: 'number', columnId: column, operator: 'ne', value: 2 })).toEqual(['half']);
        expect(await names({ type: 'number', columnId: column, operator: 'between', value: [-10, 10] })).toEqual(['half', 'two']);
        // Text: a label, or a number's text; never a list or a boolean. A record without such a value is in ne and not_in.
        expect(await names({ type: 'text', columnId: column, operator: 'eq', value: 'GOOD', caseSensitive: false })).toEqual(['good']);
        expect(await names({ type: 'text', columnId: column, operator: 'eq', value: '1', caseSensitive: true })).toEqual([]);
        expect(await names({ type: 'text', columnId: column, operator: 'one_of', value: ['a', '0.5', 'true'], caseSensitive: true })).toEqual(['a', 'half']);
        expect(await names({ type: 'text', columnId: column, operator: 'contains', value: 'a', caseSensitive: true })).toEqual(['Bad', 'a']);
        expect(await names({ type: 'text', columnId: column, operator: 'ne', value: 'a', caseSensitive: true })).toEqual(['Bad', 'good', 'half', 'list', 'no', 'none', 'two', 'yes']);
        expect(await names({ type: 'text', columnId: column, operator: 'not_in', value: ['a', 'good', '2'], caseSensitive: false })).toEqual(['Bad', 'half', 'list', 'no', 'none', 'yes']);
        // Collection: a list holding one of the values, or a label that is one; never a number or a boolean.
        expect(await names({ type: 'collection', columnId: column, operator: 'contains', value: ['a'] })).toEqual(['a', 'list']);
        expect(await names({ type: 'collection', columnId: column, operator: 'contains', value: ['b', 'good', '2', 'true'] })).toEqual(['good', 'list']);
        expect(await names({ type: 'collection', columnId: column, operator: 'not_in', value: ['a', 'good'] })).toEqual(['Bad', 'half', 'no', 'none', 'two', 'yes']);
        // Booleans alone: no number, label or list is true or false, and a record without one is in neither eq nor ne.
        expect(await names({ type: 'boolean', columnId: column, operator: 'eq', value: true })).toEqual(['yes']);
        expect(await names({ type: 'boolean', columnId: column, operator: 'eq', value: false })).toEqual(['no']);
        expect(await names({ type: 'boolean', columnId: column, operator: 'ne', value: true })).toEqual(['no']);
        expect(await names({ type: 'boolean', columnId: column, operator: 'ne', value: false })).toEqual(['yes']);
      });

      it('ignores case beyond ASCII in a text filter that is not case-sensitive, by the same classes on every engine', async () => {
        const run = await aRunWithRecords();
        const recs = ['Éclair', 'éCLAIR', 'eclair', 'ΟΔΟΣ', 'οδος', 'Straße'].map((name) => aRecord(run, { name }));
        await right(r.logRecords.ingest(run.id, recs, []));
        const names = async (operator: 'eq' | 'ne' | 'contains' | 'one_of' | 'not_in', value: string | string[], caseSensitive = false) =>
          (await found(query(run, { filters: [{ type: 'text', columnId: 'name', operator, value, caseSensitive }], sort: { columnId: 'name', ascending: true } }))).map((x) => x.name);
        expect(await names('eq', 'ÉCLAIR')).toEqual(['Éclair', 'éCLAIR']);
        expect(await names('eq', 'Éclair', true)).toEqual(['Éclair']);
        expect(await names('ne', 'éclair')).toEqual(['Straße', 'eclair', 'ΟΔΟΣ', 'οδος']);
        expect(await names('contains', 'ÉCL')).toEqual(['Éclair', 'éCLAIR']);
        expect(await names('one_of', ['οδοσ'])).toEqual(['ΟΔΟΣ', 'οδος']);
        expect(await names('not_in', ['ΟΔΟΣ', 'ÉCLAIR'])).toEqual(['Straße', 'eclair']);
        // One character for one: ß is ẞ, never ss.
        expect(await names('eq', 'STRAẞE')).toEqual(['Straße']);
        expect(await names('eq', 'strasse')).toEqual([]);
      });

      // Bytes, not characters: 5,000 é take 10,000 bytes in UTF-8 (and in BSON).
      it.each([['x'.repeat(10_000)], ['é'.repeat(5_000)]])('ends a page at its byte budget, after the record that reaches it, and always holds one record (%#)', async (output) => {
        const run = await aRunWithRecords();
        const recs = [1, 2, 3, 4, 5].map((i) => aRecord(run, { name: `r${i}`, input: 'q', output }));
        await right(r.logRecords.ingest(run.id, recs, []));
        const page = async (startingToken: number, maxBytes: number) => {
          const { items: records, more } = await right(r.logRecords.search(query(run, { sort: { columnId: 'name', ascending: true }, page: { startingToken, limit: 4 }, maxBytes })));
          return [records.map((x) => x.name), more];
        };
        // Each record stores a little over 10,000 bytes.
        expect(await page(0, 15_000)).toEqual([['r1', 'r2'], true]);
        expect(await page(2, 15_000)).toEqual([['r3', 'r4'], true]);
        expect(await page(4, 15_000)).toEqual([['r5'], false]);
        expect(await page(0, 1)).toEqual([['r1'], true]);
        expect(await page(0, 1 << 30)).toEqual([['r1', 'r2', 'r3', 'r4'], true]);
        expect(await page(1, 1 << 30)).toEqual([['r2', 'r3', 'r4', 'r5'], false]);
      });

      it('links parents and children ingested at the same time by separate calls', async () => {
        const run = await aRunWithRecords();
        const pairs = Array.from({ length: 8 }, (_, i) => {
          const parent = aRecord(run, { name: `parent-${i}` });
          return [parent, aRecord(run, { type: 'llm', traceId: parent.id, parentId: parent.id })] as const;
        });
        await Promise.all(pairs.flatMap(([parent, child]) => [right(r.logRecords.ingest(run.id, [child], [])), right(r.logRecords.ingest(run.id, [parent], []))]));
        const traces = await found(query(run));
        expect(traces.map((t) => [t.name, t.hasChildren]).sort()).toEqual(pairs.map(([p]) => [p.name, true]).sort());
      });

      it('removes records created before a cutoff, in batches across runs, and keeps newer ones and column presence', async () => {
        // Older than any other test's records (the fixtures' are from 2026), so the counts are this test's alone.
        const run = await aRunWithRecords();
        const other = await aRunWithRecords();
        const old = (of: typeof run, day: string, over: Partial<LogRecord> = {}) => aRecord(of, { createdAt: at(`1990-01-${day}T00:00:00.000Z`), ...over });
        const trace = old(run, '01', { hasChildren: true });
        const oldOnes = [trace, old(run, '02', { type: 'llm', traceId: trace.id, parentId: trace.id }), old(run, '03', { type: 'session', traceId: null })];
        const kept = aRecord(run, { createdAt: at('1995-01-01T00:00:00.000Z') });
        // Exactly at the cutoff is not before it.
        const atCutoff = aRecord(other, { createdAt: at('1991-01-01T00:00:00.000Z') });
        await right(r.logRecords.ingest(run.id, [...oldOnes, kept], ['input', 'model']));
        await right(r.logRecords.ingest(other.id, [old(other, '04'), old(other, '05'), atCutoff], ['name']));
        const cutoff = at('1991-01-01T00:00:00.000Z');
        expect(await right(r.logRecords.removeCreatedBefore(cutoff, 2))).toBe(2);
        expect(await right(r.logRecords.removeCreatedBefore(cutoff, 2))).toBe(2);
        expect(await right(r.logRecords.removeCreatedBefore(cutoff, 2))).toBe(1);
        expect(await right(r.logRecords.removeCreatedBefore(cutoff, 2))).toBe(0);
        for (const scope of ['spans', 'sessions'] as const) expect(await found(query(run, { scope }))).toEqual([]);
        expect(await found(query(run))).toEqual([kept]);
        expect(await found(query(other))).toEqual([atCutoff]);
        expect(await right(r.logRecords.presentColumns(run.id))).toEqual(new Set(['input', 'model']));
      });

      it('takes hasChildren from a parent that is kept when the removal of old records takes its last child, within its run', async () => {
        // Older than the test above's (1990), kept ones from 2026: whichever runs first, neither counts the other's.
        const run = await aRunWithRecords();
        const other = await aRunWithRecords();
        const old = (day: string) => at(`1980-01-${day}T00:00:00.000Z`);
        const trace = aRecord(run, { name: 'trace' });
        const span = (name: string, parent: LogRecord, createdAt?: Date) =>
          aRecord(run, { type: 'workflow', name, traceId: trace.id, parentId: parent.id, ...(createdAt ? { createdAt } : {}) });
        const lonely = span('lonely', trace);
        const busy = span('busy', trace);
        const emptied = span('emptied', trace);
        const children = [span('c1', lonely, old('01')), span('c2', busy, old('02')), span('c3', busy), span('c4', emptied, old('03')), span('c5', emptied, old('04'))];
        // A parent removed with its child: nothing is left to update.
        const oldTrace = aRecord(run, { name: 'old-trace', createdAt: old('05') });
        const oldChild = aRecord(run, { type: 'llm', name: 'old-child', traceId: oldTrace.id, parentId: oldTrace.id, createdAt: old('06') });
        await right(r.logRecords.ingest(run.id, [trace, lonely, busy, emptied, ...children, oldTrace, oldChild], []));
        // In another run, a record with lonely's id whose child stays: a child in another run keeps no parent here.
        const namesake = aRecord(other, { id: lonely.id, name: 'namesake' });
        await right(r.logRecords.ingest(other.id, [namesake, aRecord(other, { type: 'llm', name: 'namesake-child', traceId: namesake.id, parentId: namesake.id })], []));
        const withChildren = [{ type: 'boolean', columnId: 'has_children', operator: 'eq', value: true }] as const;
        const names = async (q: RecordQuery) => (await found(q)).map((x) => x.name).sort();
        expect(await names(query(run, { scope: 'spans', filters: withChildren }))).toEqual(['busy', 'emptied', 'lonely']);

        // Batches of 2: the two children of `emptied` may go in different ones.
        const cutoff = at('1981-01-01T00:00:00.000Z');
        let removed = 0;
        for (let step = 0; step < 10; step++) {
          const batch = await right(r.logRecords.removeCreatedBefore(cutoff, 2));
          removed += batch;
          if (batch < 2) break;
        }
        expect(removed).toBe(6);
        expect(await names(query(run, { scope: 'spans' }))).toEqual(['busy', 'c3', 'emptied', 'lonely']);
        expect(await names(query(run, { scope: 'spans', filters: withChildren }))).toEqual(['busy']);
        expect((await found(query(run))).map((x) => [x.name, x.hasChildren])).toEqual([['trace', true]]);
        expect((await found(query(other))).map((x) => [x.name, x.hasChildren])).toEqual([['namesake', true]]);
      });
    });

    describe('LogRecordRepository: sessions by external id, and updates', () => {
      const aRunOf = async () => {
        const u = await someUser();
        return right(r.runs.insert(aRun(await right(r.projects.insert(aProject(u.id))))));
      };
      const sessionsOf = async (run: Run) =>
        (
          await right(
            r.logRecords.search({ projectId: run.projectId, runId: run.id, scope: 'sessions', filters: [], sort: null, page: { startingToken: 0, limit: 100 }, maxBytes: 1 << 30, maxMs: 60_000 }),
          )
        ).items;
      const aSession = (run: Run, externalId: string, over: Partial<LogRecord> = {}) => {
        const id = randomUUID();
        return aRecord(run, { id, type: 'session', traceId: null, sessionId: id, externalId, ...over });
      };

      it('stores a session for a new external id, and answers the stored one after', async () => {
        const run = await aRunOf();
        const first = aSession(run, 'conversation-1');
        expect(await right(r.logRecords.findOrCreateSession(run.id, first))).toEqual(first);
        expect(await right(r.logRecords.findOrCreateSession(run.id, aSession(run, 'conversation-1')))).toEqual(first);
        const other = aSession(run, 'conversation-2');
        expect(await right(r.logRecords.findOrCreateSession(run.id, other))).toEqual(other);
        expect((await sessionsOf(run)).map((s) => s.id).sort()).toEqual([first.id, other.id].sort());
        // The session's columns are the run's: external_id among them.
        expect([...(await right(r.logRecords.presentColumns(run.id)))]).toContain('external_id');
      });
      it('answers the oldest of the sessions stored before with that external id', async () => {
        const run = await aRunOf();
        const older = aSession(run, 'shared', { createdAt: at('2026-02-01T00:00:00.000Z') });
        const newer = aSession(run, 'shared', { createdAt: at('2026-02-02T00:00:00.000Z') });
        await right(r.logRecords.ingest(run.id, [newer, older], []));
        expect((await right(r.logRecords.findOrCreateSession(run.id, aSession(run, 'shared')))).id).toBe(older.id);
        expect(await sessionsOf(run)).toHaveLength(2);
      });
      it('makes one session of concurrent calls naming the same new external id', async () => {
        const run = await aRunOf();
        const found = await Promise.all(Array.from({ length: 8 }, () => right(r.logRecords.findOrCreateSession(run.id, aSession(run, 'racing')))));
        expect(new Set(found.map((s) => s.id)).size).toBe(1);
        expect((await sessionsOf(run)).map((s) => s.id)).toEqual([found[0]!.id]);
      });
      it('is NotFound for a run that does not exist, storing nothing', async () => {
        const run = await aRunOf();
        const gone = { ...run, id: asId<RunId>(randomUUID()) };
        expect((await left(r.logRecords.findOrCreateSession(gone.id, aSession(gone, 'x'))))._tag).toBe('NotFound');
      });

      it('updates a trace or a span in place: what is sent overwrites, tags are added, the rest stays', async () => {
        const run = await aRunOf();
        const trace = aRecord(run, { tags: ['a'], isComplete: false, output: null, statusCode: null, hasChildren: true });
        const span = aRecord(run, { type: 'llm', traceId: trace.id, parentId: trace.id, metrics: { num_input_tokens: 3 } });
        await right(r.logRecords.ingest(run.id, [trace, span], []));
        const now = at('2026-06-01T00:00:00.000Z');
        const updated = await right(r.logRecords.update(run.id, trace.id, 'trace', { output: 'done', statusCode: 200, tags: ['b', 'a'], isComplete: true, durationNs: 5 }, now));
        expect(updated).toEqual({ ...trace, output: 'done', statusCode: 200, tags: ['a', 'b'], isComplete: true, metrics: { ...trace.metrics, duration_ns: 5 }, updatedAt: now });
        const spanNow = await right(r.logRecords.update(run.id, span.id, 'span', { output: { role: 'assistant', content: 'x' }, metrics: { num_output_tokens: 9 } }, now));
        expect(spanNow).toEqual({ ...span, output: { role: 'assistant', content: 'x' }, metrics: { ...span.metrics, num_output_tokens: 9 }, updatedAt: now });
        const stored = (await right(r.logRecords.search({ projectId: run.projectId, runId: run.id, scope: 'traces', filters: [], sort: null, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000 }))).items;
        expect(stored).toEqual([updated]);
        // The columns the record now has are present in the run's catalogue.
        expect([...(await right(r.logRecords.presentColumns(run.id)))]).toEqual(expect.arrayContaining(['output', 'status_code']));
      });
      it('updates are NotFound for an unknown id, a record of the other kind, a session, or another run, changing nothing', async () => {
        const run = await aRunOf();
        const other = await aRunOf();
        const trace = aRecord(run);
        const span = aRecord(run, { type: 'tool', traceId: trace.id, parentId: trace.id });
        const session = aSession(run, 's');
        await right(r.logRecords.ingest(run.id, [trace, span, session], []));
        const now = at('2026-06-01T00:00:00.000Z');
        for (const [runId, id, target] of [
          [run.id, randomUUID(), 'trace'],
          [run.id, span.id, 'trace'],
          [run.id, trace.id, 'span'],
          [run.id, session.id, 'span'],
          [other.id, trace.id, 'trace'],
        ] as const)
          expect((await left(r.logRecords.update(runId, id, target, { output: 'x' }, now)))._tag).toBe('NotFound');
        const stored = (await right(r.logRecords.search({ projectId: run.projectId, runId: run.id, scope: 'traces', filters: [], sort: null, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000 }))).items;
        expect(stored).toEqual([{ ...trace, hasChildren: true }]);
      });
      it('concurrent updates of one record each add their tags (none is lost)', async () => {
        const run = await aRunOf();
        const trace = aRecord(run, { tags: [] });
        await right(r.logRecords.ingest(run.id, [trace], []));
        const now = at('2026-06-01T00:00:00.000Z');
        await Promise.all(Array.from({ length: 6 }, (_, i) => right(r.logRecords.update(run.id, trace.id, 'trace', { tags: [`t${i}`] }, now))));
        const stored = (await right(r.logRecords.search({ projectId: run.projectId, runId: run.id, scope: 'traces', filters: [], sort: null, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000 }))).items;
        expect([...stored[0]!.tags].sort()).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
      });
    });

    describe('RunScorerSettingsRepository', () => {
      it('answers none before anything is stored, then replaces whole', async () => {
        const u = await someUser();
        const run = await right(r.runs.insert(aRun(await right(r.projects.insert(aProject(u.id))))));
        const s1 = await right(r.scorers.insert(aScorer(u.id)));
        const s2 = await right(r.scorers.insert(aScorer(u.id)));
        expect(await right(r.runScorers.find(run.id))).toEqual(O.none);
        const first = { runId: run.id, scorers: [{ scorerId: s1.id, version: null }, { scorerId: s2.id, version: 2 }], updatedAt: at('2026-04-04T04:04:04.044Z') };
        await right(r.runScorers.replace(first));
        expect(await right(r.runScorers.find(run.id))).toEqual(O.some(first));
        const second = { runId: run.id, scorers: [], updatedAt: at('2026-04-05T04:04:04.045Z') };
        await right(r.runScorers.replace(second));
        expect(await right(r.runScorers.find(run.id))).toEqual(O.some(second));
      });

      it('keeps each selection\'s sample rate, and none where none was given', async () => {
        const u = await someUser();
        const run = await right(r.runs.insert(aRun(await right(r.projects.insert(aProject(u.id))))));
        const s1 = await right(r.scorers.insert(aScorer(u.id)));
        const s2 = await right(r.scorers.insert(aScorer(u.id)));
        const settings = { runId: run.id, scorers: [{ scorerId: s1.id, version: null, sampleRate: 0.25 }, { scorerId: s2.id, version: 1 }], updatedAt: at('2026-04-04T04:04:04.044Z') };
        await right(r.runScorers.replace(settings));
        expect(await right(r.runScorers.find(run.id))).toEqual(O.some(settings));
      });
    });

    describeScoringQueueContract(() => r);
  });
};
