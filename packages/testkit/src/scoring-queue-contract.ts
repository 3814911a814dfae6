// The ScoringQueue contract (and what LogRecordRepository does for scoring): the same cases on every
// engine, so that jobs are stored, claimed, finished and counted alike on SQLite and MongoDB.
import {
  type ClaimedJob,
  type JobOutcome,
  type LogRecord,
  type MetricInfo,
  type NewScoringJob,
  type Run,
  type Scorer,
  jobsFor,
} from '@tracelight/domain';
import type { Repositories } from '@tracelight/ports';
import { aProject, aRecord, aRun, aScorer, aUser, anLlmVersion, at } from './fixtures';
import { left, right } from './results';

const NO_TOKENS = { prompt: 0, completion: 0 };
const success = (value: NonNullable<MetricInfo['value']>, version = 1, tokens = NO_TOKENS): JobOutcome => ({
  state: 'success',
  info: { status_type: 'success', scorer_type: 'llm', value, display_value: String(value), explanation: 'because', explanations: ['because'], cost: null, version },
  tokens,
});
const outcome = (state: 'error' | 'failed' | 'not_applicable' | 'not_computed', message: string, version = 1): JobOutcome => ({
  state,
  message,
  info: { status_type: state, scorer_type: 'llm', message, version },
  tokens: { prompt: 3, completion: 1 },
});

export const describeScoringQueueContract = (repositories: () => Repositories): void => {
  describe('ScoringQueue', () => {
    let r: Repositories;
    beforeAll(() => {
      r = repositories();
    });
    const now = () => new Date();
    const later = (ms: number) => new Date(Date.now() + ms);
    const owner = () => `worker-${Math.random().toString(36).slice(2, 8)}`;

    /** A run with a scorer of its owner (LLM versions 1 and 2), a trace, two llm spans and a tool span under it, in a session. */
    const scene = async () => {
      const user = await right(r.users.insert(aUser()));
      const project = await right(r.projects.insert(aProject(user.id)));
      const run = await right(r.runs.insert(aRun(project)));
      const scorer = await right(r.scorers.insert(aScorer(user.id)));
      const session = aRecord(run, { type: 'session', traceId: null, metrics: {} });
      const trace = aRecord(run, { hasChildren: true, sessionId: session.id, metrics: {} });
      const span = (over: Partial<LogRecord> = {}) =>
        aRecord(run, { type: 'llm', traceId: trace.id, parentId: trace.id, sessionId: session.id, metrics: { duration_ns: 5 }, ...over });
      const spans = [span(), span(), span({ type: 'tool' })];
      return { user, run, scorer, session, trace, spans };
    };
    const plan = (scorer: Scorer, version = 1) => [{ scorer, version: anLlmVersion(scorer, version), sampleRate: 1 }];
    /** Ingests the records with the jobs the plan gives them, as the use case does (storage marks them pending). */
    const ingestScored = async (run: Run, records: ReadonlyArray<LogRecord>, scorer: Scorer, version = 1) => {
      const jobs = jobsFor(records, plan(scorer, version));
      await right(r.logRecords.ingest(run.id, records, ['input'], jobs));
      return jobs;
    };
    /** Claims every job due now of this run (others' jobs are given back by leasing them out and never finishing). */
    const claimOf = async (run: Run, who = owner(), leaseMs = 60_000, at = now()): Promise<ClaimedJob[]> => {
      const mine: ClaimedJob[] = [];
      for (;;) {
        const got = await right(r.scoringQueue.claim(who, 50, at, new Date(at.getTime() + leaseMs)));
        mine.push(...got.filter((j) => j.runId === run.id));
        if (got.length < 50) return mine;
      }
    };
    const recordOf = async (run: Run, id: string) => (await right(r.logRecords.findByIds(run.id, [id])))[0];

    it('stores the jobs with the records, pending on them, and hands each out once with its attempt counted', async () => {
      const s = await scene();
      const jobs = await ingestScored(s.run, [s.trace, ...s.spans], s.scorer);
      expect(jobs.map((j) => j.recordId)).toEqual([s.spans[0]!.id, s.spans[1]!.id]);
      expect((await recordOf(s.run, s.spans[0]!.id))?.metricInfo).toEqual({ [s.scorer.name]: { status_type: 'pending', scorer_type: 'llm', version: 1 } });
      expect((await recordOf(s.run, s.trace.id))?.metricInfo).toBeUndefined();
      const claimed = await claimOf(s.run);
      expect(claimed.map((j) => j.recordId).sort()).toEqual(jobs.map((j) => j.recordId).sort());
      expect(claimed.every((j) => j.attempts === 1 && j.metricName === s.scorer.name && j.ownerId === s.user.id && j.kind === 'llm')).toBe(true);
      expect(await claimOf(s.run)).toEqual([]);
    });

    it('stores nothing of a refused ingest: no job without its record', async () => {
      const s = await scene();
      await right(r.logRecords.ingest(s.run.id, [s.session], []));
      // A trace under the session's id is refused (kindClash): neither it nor its job is stored.
      const clash = aRecord(s.run, { id: s.session.id, type: 'llm', traceId: s.trace.id });
      const jobs = jobsFor([clash], plan(s.scorer));
      expect(jobs).toHaveLength(1);
      expect((await left(r.logRecords.ingest(s.run.id, [clash], [], jobs)))._tag).toBe('Conflict');
      expect(await claimOf(s.run)).toEqual([]);
    });

    it('keeps one job per (record, scorer version) however often the record is sent, and one per version', async () => {
      const s = await scene();
      await ingestScored(s.run, [s.spans[0]!], s.scorer);
      await ingestScored(s.run, [s.spans[0]!], s.scorer);
      await ingestScored(s.run, [s.spans[0]!], s.scorer, 2);
      expect((await claimOf(s.run)).map((j) => j.version).sort()).toEqual([1, 2]);
    });

    it('never hands one job to two concurrent claims', async () => {
      const s = await scene();
      const records = Array.from({ length: 12 }, () => aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: s.trace.id }));
      await ingestScored(s.run, records, s.scorer);
      const t = now();
      const batches = await Promise.all(Array.from({ length: 4 }, (_, i) => right(r.scoringQueue.claim(`racer-${i}`, 5, t, new Date(t.getTime() + 60_000)))));
      const mine = batches.flat().filter((j) => j.runId === s.run.id).map((j) => j.recordId);
      expect(new Set(mine).size).toBe(mine.length);
      expect(mine.length + (await claimOf(s.run)).length).toBe(12);
    });

    it('hands a job out again once its lease runs out, and then only the new holder may finish it', async () => {
      const s = await scene();
      await ingestScored(s.run, [s.spans[0]!], s.scorer);
      const [first] = await claimOf(s.run, 'dead-worker', 1_000);
      expect(first).toBeDefined();
      expect(await claimOf(s.run, 'other')).toEqual([]); // held
      const [second] = await claimOf(s.run, 'other', 60_000, later(2_000)); // past the lease
      expect(second).toMatchObject({ id: first!.id, attempts: 2, leaseOwner: 'other' });
      expect(await right(r.scoringQueue.complete(first!, success(1), now(), null))).toBe(false);
      expect((await recordOf(s.run, s.spans[0]!.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('pending');
      expect(await right(r.scoringQueue.complete(second!, success(0.5), now(), null))).toBe(true);
      expect(await right(r.scoringQueue.complete(second!, success(0.9), now(), null))).toBe(false);
      expect((await recordOf(s.run, s.spans[0]!.id))?.metrics[s.scorer.name]).toBe(0.5);
    });

    it('renews the leases its holder still holds, and no other', async () => {
      const s = await scene();
      await ingestScored(s.run, s.spans.slice(0, 2), s.scorer);
      const held = await claimOf(s.run, 'holder', 1_000);
      expect(held).toHaveLength(2);
      const renewed = await right(r.scoringQueue.renew('holder', held.map((j) => j.id), later(60_000)));
      expect([...renewed].sort()).toEqual(held.map((j) => j.id).sort());
      expect(await right(r.scoringQueue.renew('someone-else', held.map((j) => j.id), later(60_000)))).toEqual([]);
      expect(await claimOf(s.run, 'other', 60_000, later(2_000))).toEqual([]); // renewed past it
    });

    it('writes a success into the record (value, entry, column presence) and keeps it when the record is sent again', async () => {
      const s = await scene();
      await ingestScored(s.run, [s.spans[0]!], s.scorer);
      const [job] = await claimOf(s.run);
      expect(await right(r.scoringQueue.complete(job!, success(0.75), now(), null))).toBe(true);
      const scored = await recordOf(s.run, s.spans[0]!.id);
      expect(scored?.metrics).toEqual({ duration_ns: 5, [s.scorer.name]: 0.75 });
      expect(scored?.metricInfo?.[s.scorer.name]).toEqual((success(0.75) as { info: MetricInfo }).info);
      expect(await right(r.logRecords.presentColumns(s.run.id))).toContain(`metrics/${s.scorer.name}`);
      // Sent again (a client's retry, with new metrics): the scorer's value and entry stay, and no job is queued again.
      await ingestScored(s.run, [{ ...s.spans[0]!, metrics: { duration_ns: 7 } }], s.scorer);
      const again = await recordOf(s.run, s.spans[0]!.id);
      expect(again?.metrics).toEqual({ duration_ns: 7, [s.scorer.name]: 0.75 });
      expect(again?.metricInfo?.[s.scorer.name]?.status_type).toBe('success');
      expect(await claimOf(s.run)).toEqual([]);
    });

    it('stores a record\'s success of a version once, whatever jobs of it there are (a record sent again under another trace)', async () => {
      const s = await scene();
      await ingestScored(s.run, [s.spans[0]!], s.scorer);
      const [job] = await claimOf(s.run);
      await right(r.scoringQueue.complete(job!, success(0.75), now(), null));
      // The span moved to another trace of the run: its jobs (if the engine keeps one there) finish without a second value.
      const other = aRecord(s.run, { hasChildren: true });
      await ingestScored(s.run, [other, { ...s.spans[0]!, traceId: other.id, parentId: other.id }], s.scorer);
      for (const again of await claimOf(s.run)) expect(await right(r.scoringQueue.complete(again, success(0.1), now(), null))).toBe(true);
      expect((await recordOf(s.run, s.spans[0]!.id))?.metrics[s.scorer.name]).toBe(0.75);
    });

    it('writes a failure as the record\'s entry, without a value, and leaves a later version\'s entry alone', async () => {
      const s = await scene();
      await ingestScored(s.run, [s.spans[0]!], s.scorer, 1);
      await ingestScored(s.run, [s.spans[0]!], s.scorer, 2);
      const [v1, v2] = (await claimOf(s.run)).sort((a, b) => a.version - b.version);
      await right(r.scoringQueue.complete(v2!, success(1, 2), now(), null));
      // Version 1 finishing late does not replace version 2's value.
      await right(r.scoringQueue.complete(v1!, outcome('failed', 'judge answer did not parse'), now(), null));
      expect((await recordOf(s.run, s.spans[0]!.id))?.metricInfo?.[s.scorer.name]).toMatchObject({ status_type: 'success', version: 2 });
      const other = await scene();
      await ingestScored(other.run, [other.spans[0]!], other.scorer);
      const [job] = await claimOf(other.run);
      await right(r.scoringQueue.complete(job!, outcome('error', 'no gateway integration'), now(), null));
      const rec = await recordOf(other.run, other.spans[0]!.id);
      expect(rec?.metricInfo?.[other.scorer.name]).toEqual({ status_type: 'error', scorer_type: 'llm', message: 'no gateway integration', version: 1 });
      expect(rec?.metrics).toEqual({ duration_ns: 5 });
    });

    it('puts a job back to pending until its backoff has passed, counting its tokens', async () => {
      const s = await scene();
      await ingestScored(s.run, [s.spans[0]!], s.scorer);
      const [job] = await claimOf(s.run);
      const due = later(30_000);
      expect(await right(r.scoringQueue.complete(job!, { state: 'retry', message: '429 rate limited', dueAt: due, tokens: { prompt: 10, completion: 2 } }, now(), null))).toBe(true);
      expect(await claimOf(s.run)).toEqual([]);
      const [again] = await claimOf(s.run, owner(), 60_000, later(31_000));
      expect(again).toMatchObject({ id: job!.id, attempts: 2 });
      await right(r.scoringQueue.complete(again!, success(1, 1, { prompt: 5, completion: 1 }), now(), null));
      expect(await right(r.scoringQueue.counts(s.run.id))).toEqual([
        {
          scorerId: s.scorer.id,
          version: 1,
          counts: { pending: 0, computing: 0, success: 1, error: 0, failed: 0, not_applicable: 0, not_computed: 0 },
          tokens: { prompt: 15, completion: 3 },
          lastError: null,
        },
      ]);
    });

    it('counts a run\'s jobs by scorer version and state, with the latest failure', async () => {
      const s = await scene();
      const more = Array.from({ length: 3 }, () => aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: s.trace.id }));
      await ingestScored(s.run, [...s.spans, ...more], s.scorer);
      const [a, b, c] = await claimOf(s.run);
      await right(r.scoringQueue.complete(a!, outcome('failed', 'first failure'), at('2026-01-01T00:00:00.000Z'), null));
      await right(r.scoringQueue.complete(b!, outcome('error', 'no gateway integration'), at('2026-01-01T00:00:01.000Z'), null));
      await right(r.scoringQueue.complete(c!, success(1), now(), null));
      const [counts] = await right(r.scoringQueue.counts(s.run.id));
      expect(counts).toEqual({
        scorerId: s.scorer.id,
        version: 1,
        counts: { pending: 0, computing: 2, success: 1, error: 1, failed: 1, not_applicable: 0, not_computed: 0 },
        tokens: { prompt: 6, completion: 2 },
        lastError: { message: 'no gateway integration', at: at('2026-01-01T00:00:01.000Z') },
      });
      const depth = await right(r.scoringQueue.depth());
      expect(depth.computing).toBeGreaterThanOrEqual(2);
    });

    it('rolls a numeric metric up into the trace and the session: the average of the scored descendants', async () => {
      const s = await scene();
      const spanB = aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: s.trace.id, sessionId: s.session.id });
      await right(r.logRecords.ingest(s.run.id, [s.session], []));
      await ingestScored(s.run, [s.trace, s.spans[0]!, spanB], s.scorer);
      const jobs = await claimOf(s.run);
      const spec = { metricName: s.scorer.name, scorerType: 'llm' as const, version: 1, threshold: null, method: 'average' as const };
      const byRecord = (id: string) => jobs.find((j) => j.recordId === id)!;
      await right(r.scoringQueue.complete(byRecord(s.spans[0]!.id), success(1), now(), spec));
      expect((await recordOf(s.run, s.trace.id))?.metrics[s.scorer.name]).toBe(1);
      await right(r.scoringQueue.complete(byRecord(spanB.id), success(0), now(), spec));
      const trace = await recordOf(s.run, s.trace.id);
      expect(trace?.metrics[s.scorer.name]).toBe(0.5);
      expect(trace?.metricInfo?.[s.scorer.name]).toMatchObject({ status_type: 'success', value: 0.5, roll_up_method: 'average', roll_up_count: 2 });
      const session = await recordOf(s.run, s.session.id);
      expect(session?.metricInfo?.[s.scorer.name]).toMatchObject({ value: 0.5, roll_up_method: 'average', roll_up_count: 2 });
      expect(await right(r.logRecords.presentColumns(s.run.id))).toContain(`metrics/${s.scorer.name}`);
    });

    it('does not roll up into a record the scorer scores itself', async () => {
      const s = await scene();
      const version = { ...anLlmVersion(s.scorer, 1), scoreableNodeTypes: ['trace', 'llm'] };
      const jobs = jobsFor([s.trace, s.spans[0]!], [{ scorer: s.scorer, version, sampleRate: 1 }]);
      await right(r.logRecords.ingest(s.run.id, [s.trace, s.spans[0]!], [], jobs));
      const claimed = await claimOf(s.run);
      const spec = { metricName: s.scorer.name, scorerType: 'llm' as const, version: 1, threshold: null, method: 'average' as const };
      await right(r.scoringQueue.complete(claimed.find((j) => j.recordId === s.spans[0]!.id)!, success(1), now(), spec));
      expect((await recordOf(s.run, s.trace.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('pending');
      await right(r.scoringQueue.complete(claimed.find((j) => j.recordId === s.trace.id)!, success(0), now(), spec));
      expect((await recordOf(s.run, s.trace.id))?.metrics[s.scorer.name]).toBe(0);
    });

    it('stores labels and lists of labels, which text and collection filters find and sorts order', async () => {
      const s = await scene();
      const spans = [0, 1, 2].map((i) => aRecord(s.run, { type: 'llm', name: `span-${i}`, traceId: s.trace.id, parentId: s.trace.id, metrics: {} }));
      await ingestScored(s.run, spans, s.scorer);
      const jobs = await claimOf(s.run);
      const values: Record<string, NonNullable<MetricInfo['value']>> = { 'span-0': ['a', 'b'], 'span-1': ['c'], 'span-2': ['a'] };
      for (const j of jobs) await right(r.scoringQueue.complete(j, success(values[spans.find((x) => x.id === j.recordId)!.name]!), now(), null));
      const search = (filters: Parameters<Repositories['logRecords']['search']>[0]['filters']) =>
        r.logRecords.search({ projectId: s.run.projectId, runId: s.run.id, scope: 'spans', filters, sort: { columnId: 'name', ascending: true }, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000 });
      const column = `metrics/${s.scorer.name}`;
      expect((await right(search([{ type: 'collection', columnId: column, operator: 'contains', value: ['a'] }]))).items.map((x) => x.name)).toEqual(['span-0', 'span-2']);
      expect((await right(search([{ type: 'collection', columnId: column, operator: 'not_in', value: ['a'] }]))).items.map((x) => x.name)).toEqual(['span-1']);
      // A categorical value: text.
      const other = await scene();
      const labelled = [0, 1].map((i) => aRecord(other.run, { type: 'llm', name: `l-${i}`, traceId: other.trace.id, parentId: other.trace.id, metrics: {} }));
      await ingestScored(other.run, labelled, other.scorer);
      for (const j of await claimOf(other.run)) await right(r.scoringQueue.complete(j, success(j.recordId === labelled[0]!.id ? 'Good' : 'bad'), now(), null));
      const found = await right(
        r.logRecords.search({
          projectId: other.run.projectId, runId: other.run.id, scope: 'spans',
          filters: [{ type: 'text', columnId: `metrics/${other.scorer.name}`, operator: 'eq', value: 'good', caseSensitive: false }],
          sort: { columnId: `metrics/${other.scorer.name}`, ascending: false }, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000,
        }),
      );
      expect(found.items.map((x) => [x.name, x.metrics[other.scorer.name]])).toEqual([['l-0', 'Good']]);
    });

    it('rolls up by sum, first and last (by creation time, to the microsecond, then id), labels and booleans by first and last', async () => {
      const s = await scene();
      // Created in the order c, a, b (a and b in the same millisecond, a's microseconds first).
      const span = (createdAt: string, createdAtMicros: number) =>
        aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: s.trace.id, sessionId: s.session.id, createdAt: at(createdAt), createdAtMicros });
      const a = span('2026-03-01T00:00:01.000Z', 5);
      const b = span('2026-03-01T00:00:01.000Z', 9);
      const c = span('2026-03-01T00:00:00.000Z', 0);
      await right(r.logRecords.ingest(s.run.id, [s.session], []));
      const values = new Map<string, NonNullable<MetricInfo['value']>>([[a.id, 2], [b.id, 3], [c.id, 4]]);
      const rolled = async (method: 'sum' | 'first' | 'last', of: Map<string, NonNullable<MetricInfo['value']>>) => {
        const t = aRecord(s.run, { hasChildren: true, sessionId: null, metrics: {} });
        const spans = [a, b, c].map((x) => ({ ...x, id: `${x.id}-${method}-${typeof of.get(x.id)}`, traceId: t.id, parentId: t.id, sessionId: null }));
        await ingestScored(s.run, [t, ...spans], s.scorer);
        const spec = { metricName: s.scorer.name, scorerType: 'code' as const, version: 1, threshold: null, method };
        const jobs = (await claimOf(s.run)).filter((j) => spans.some((x) => x.id === j.recordId));
        for (const j of jobs) await right(r.scoringQueue.complete(j, success(of.get(j.recordId.split('-').slice(0, -2).join('-'))!), now(), spec));
        return (await recordOf(s.run, t.id))?.metricInfo?.[s.scorer.name];
      };
      expect(await rolled('sum', values)).toMatchObject({ value: 9, roll_up_method: 'sum', roll_up_count: 3 });
      expect(await rolled('first', values)).toMatchObject({ value: 4, roll_up_method: 'first', roll_up_count: 3 });
      expect(await rolled('last', values)).toMatchObject({ value: 3, roll_up_method: 'last', roll_up_count: 3 });
      const labels = new Map<string, NonNullable<MetricInfo['value']>>([[a.id, 'ok'], [b.id, 'late'], [c.id, 'early']]);
      expect(await rolled('first', labels)).toMatchObject({ value: 'early', display_value: 'early', roll_up_count: 3 });
      const flags = new Map<string, NonNullable<MetricInfo['value']>>([[a.id, true], [b.id, false], [c.id, true]]);
      const last = await rolled('last', flags);
      expect(last).toMatchObject({ value: false, display_value: 'false', roll_up_method: 'last' });
      // Labels and booleans do not count in a sum or an average: no roll-up at all.
      const t = aRecord(s.run, { hasChildren: true, sessionId: null, metrics: {} });
      const x = aRecord(s.run, { type: 'llm', traceId: t.id, parentId: t.id, sessionId: null });
      await ingestScored(s.run, [t, x], s.scorer);
      const [job] = (await claimOf(s.run)).filter((j) => j.recordId === x.id);
      await right(r.scoringQueue.complete(job!, success(true), now(), { metricName: s.scorer.name, scorerType: 'code', version: 1, threshold: null, method: 'sum' }));
      const trace = await recordOf(s.run, t.id);
      expect(trace?.metricInfo?.[s.scorer.name]).toBeUndefined();
      expect(trace?.metrics[s.scorer.name]).toBeUndefined();
    });

    it('stores booleans, which boolean filters find (a record without the value in neither eq nor ne)', async () => {
      const s = await scene();
      const spans = [0, 1, 2].map((i) => aRecord(s.run, { type: 'llm', name: `b-${i}`, traceId: s.trace.id, parentId: s.trace.id, metrics: {} }));
      await ingestScored(s.run, spans, s.scorer);
      const jobs = await claimOf(s.run);
      const value = (id: string) => (id === spans[0]!.id ? true : id === spans[1]!.id ? false : null);
      for (const j of jobs) {
        const v = value(j.recordId);
        await right(r.scoringQueue.complete(j, v === null ? outcome('error', 'raised') : success(v), now(), null));
      }
      expect((await recordOf(s.run, spans[0]!.id))?.metrics[s.scorer.name]).toBe(true);
      expect((await recordOf(s.run, spans[1]!.id))?.metrics[s.scorer.name]).toBe(false);
      const names = async (operator: 'eq' | 'ne', v: boolean) =>
        (
          await right(
            r.logRecords.search({
              projectId: s.run.projectId, runId: s.run.id, scope: 'spans',
              filters: [{ type: 'boolean', columnId: `metrics/${s.scorer.name}`, operator, value: v }],
              sort: { columnId: 'name', ascending: true }, page: { startingToken: 0, limit: 10 }, maxBytes: 1 << 30, maxMs: 60_000,
            }),
          )
        ).items.map((x) => x.name);
      expect(await names('eq', true)).toEqual(['b-0']);
      expect(await names('eq', false)).toEqual(['b-1']);
      expect(await names('ne', true)).toEqual(['b-1']);
      expect(await names('ne', false)).toEqual(['b-0']);
    });

    it('queues a recompute: new jobs and those whose outcome may change, not a success', async () => {
      const s = await scene();
      const [a, b] = s.spans;
      await ingestScored(s.run, [a!, b!], s.scorer);
      const claimed = await claimOf(s.run);
      const ja = claimed.find((j) => j.recordId === a!.id);
      const jb = claimed.find((j) => j.recordId === b!.id);
      await right(r.scoringQueue.complete(ja!, success(1), now(), null));
      await right(r.scoringQueue.complete(jb!, outcome('error', 'no gateway integration'), now(), null));
      const fresh = aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: s.trace.id });
      await right(r.logRecords.ingest(s.run.id, [fresh], []));
      const jobs: NewScoringJob[] = [...jobsFor([a!, b!, fresh], plan(s.scorer))];
      expect(await right(r.scoringQueue.requeue(jobs, now()))).toBe(2);
      expect((await recordOf(s.run, b!.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('pending');
      expect((await recordOf(s.run, fresh.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('pending');
      expect((await recordOf(s.run, a!.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('success');
      const again = await claimOf(s.run);
      expect(again.map((j) => j.recordId).sort()).toEqual([b!.id, fresh.id].sort());
      expect(again.find((j) => j.recordId === b!.id)?.attempts).toBe(1);
      // Queued again while pending or computing: nothing more.
      expect(await right(r.scoringQueue.requeue(jobs, now()))).toBe(0);
    });

    it('reads records by id, and record keys a page at a time by type and creation time', async () => {
      const s = await scene();
      const records = [0, 1, 2, 3].map((i) => aRecord(s.run, { type: i === 3 ? 'tool' : 'llm', traceId: s.trace.id, parentId: s.trace.id, createdAt: at(`2026-02-0${i + 1}T00:00:00.000Z`) }));
      await right(r.logRecords.ingest(s.run.id, [s.trace, ...records], []));
      expect((await right(r.logRecords.findByIds(s.run.id, [records[1]!.id, 'missing']))).map((x) => x.id)).toEqual([records[1]!.id]);
      const first = await right(r.logRecords.listKeys(s.run.id, { types: ['llm'], createdAfter: at('2026-02-01T00:00:00.000Z'), limit: 2 }));
      expect(first.map((k) => k.id)).toEqual([records[0]!.id, records[1]!.id]);
      expect(first[0]).toEqual({ id: records[0]!.id, type: 'llm', traceId: s.trace.id, runId: s.run.id, projectId: s.run.projectId, createdAt: records[0]!.createdAt, isComplete: true });
      const next = await right(r.logRecords.listKeys(s.run.id, { types: ['llm'], after: { createdAt: first[1]!.createdAt, id: first[1]!.id }, limit: 2 }));
      expect(next.map((k) => k.id)).toEqual([records[2]!.id]);
      const before = await right(r.logRecords.listKeys(s.run.id, { types: ['llm', 'tool'], createdBefore: at('2026-02-02T00:00:00.000Z'), createdAfter: at('2026-01-01T00:00:00.000Z'), limit: 10 }));
      expect(before.map((k) => k.id)).toEqual([records[0]!.id]);
      // Whether each is complete: a recompute leaves one that is not to the PATCH that completes it.
      const streamed = aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: s.trace.id, isComplete: false, output: null, createdAt: at('2026-03-01T00:00:00.000Z') });
      await right(r.logRecords.ingest(s.run.id, [streamed], []));
      const last = await right(r.logRecords.listKeys(s.run.id, { types: ['llm'], createdAfter: at('2026-03-01T00:00:00.000Z'), limit: 2 }));
      expect(last.map((k) => [k.id, k.isComplete])).toEqual([[streamed.id, false]]);
    });

    it('stores no job for a record sent incomplete, and scores it once a PATCH completes it, with its output', async () => {
      const s = await scene();
      // Immediate mode: the span is sent incomplete, its output to come. Jobs sent with it are not stored.
      const streamed = { ...s.spans[0]!, isComplete: false, output: null };
      const jobs = await ingestScored(s.run, [streamed], s.scorer);
      expect(jobs).toHaveLength(1);
      expect(await claimOf(s.run)).toEqual([]);
      expect((await recordOf(s.run, streamed.id))?.metricInfo).toBeUndefined();
      // Sent again, still incomplete (the SDK's retry): nothing either.
      await ingestScored(s.run, [{ ...streamed, input: 'more' }], s.scorer);
      expect(await claimOf(s.run)).toEqual([]);
      // The PATCH that completes it brings the output: its jobs are stored with it, and the record says pending.
      const completed = await right(r.logRecords.update(s.run.id, streamed.id, 'span', { output: 'the answer', isComplete: true }, now(), jobs));
      expect(completed.metricInfo?.[s.scorer.name]).toEqual({ status_type: 'pending', scorer_type: 'llm', version: 1 });
      const [job, ...more] = await claimOf(s.run);
      expect(more).toEqual([]);
      expect(job).toMatchObject({ recordId: streamed.id, attempts: 1 });
      expect((await recordOf(s.run, streamed.id))?.output).toBe('the answer');
      expect(await right(r.scoringQueue.complete(job!, success(0.25), now(), null))).toBe(true);
      // A PATCH that changes nothing a scorer reads (tags, status, a metric) queues nothing, and the result stands.
      const tagged = await right(r.logRecords.update(s.run.id, streamed.id, 'span', { tags: ['late'], statusCode: 200, durationNs: 9 }, now(), jobs));
      expect(tagged.metrics[s.scorer.name]).toBe(0.25);
      expect(tagged.metricInfo?.[s.scorer.name]?.status_type).toBe('success');
      expect(await claimOf(s.run)).toEqual([]);
      // Without jobs (a run that scores nothing), a PATCH completes a record and queues nothing.
      const other = { ...s.spans[1]!, isComplete: false, output: null };
      await ingestScored(s.run, [other], s.scorer);
      await right(r.logRecords.update(s.run.id, other.id, 'span', { output: 'x', isComplete: true }, now()));
      expect(await claimOf(s.run)).toEqual([]);
    });

    it('scores a record again when a PATCH or an ingest changes what its scorers read: the earlier result gives way to one new result', async () => {
      const s = await scene();
      const [span] = s.spans;
      const jobs = await ingestScored(s.run, [span!], s.scorer);
      const [first] = await claimOf(s.run);
      await right(r.scoringQueue.complete(first!, success(0.75), now(), null));
      // The output changes: the value goes, the record says pending, and its job is due again with its attempts reset.
      const patched = await right(r.logRecords.update(s.run.id, span!.id, 'span', { output: 'a better answer' }, now(), jobs));
      expect(patched.metrics).toEqual({ duration_ns: 5 });
      expect(patched.metricInfo?.[s.scorer.name]).toEqual({ status_type: 'pending', scorer_type: 'llm', version: 1 });
      const [second, ...more] = await claimOf(s.run);
      expect(more).toEqual([]);
      expect(second).toMatchObject({ recordId: span!.id, version: 1, attempts: 1 });
      expect(await right(r.scoringQueue.complete(second!, success(0.5), now(), null))).toBe(true);
      expect((await recordOf(s.run, span!.id))?.metrics[s.scorer.name]).toBe(0.5);
      // Sent again whole with another input (an ingest, not a PATCH): scored again too.
      await ingestScored(s.run, [{ ...span!, input: 'another question', output: 'a better answer' }], s.scorer);
      expect((await recordOf(s.run, span!.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('pending');
      const [third] = await claimOf(s.run);
      expect(await right(r.scoringQueue.complete(third!, success(0.125), now(), null))).toBe(true);
      expect((await recordOf(s.run, span!.id))?.metrics[s.scorer.name]).toBe(0.125);
      const counts = await right(r.scoringQueue.counts(s.run.id));
      expect(counts.map((c) => [c.version, c.counts.success, c.counts.pending, c.counts.computing])).toEqual([[1, 1, 0, 0]]);
    });

    it('stores nothing of a job whose record changed while it was scored: the job scores what the record now holds', async () => {
      const s = await scene();
      const [span] = s.spans;
      const jobs = await ingestScored(s.run, [span!], s.scorer);
      const who = owner();
      const [stale] = await claimOf(s.run, who);
      // The output arrives while a worker judges the record as it was; the same worker may claim the job again.
      await right(r.logRecords.update(s.run.id, span!.id, 'span', { output: 'changed meanwhile' }, now(), jobs));
      const [fresh] = await claimOf(s.run, who);
      expect(fresh).toBeDefined();
      expect(await right(r.scoringQueue.complete(stale!, success(0.9), now(), null))).toBe(false);
      expect((await recordOf(s.run, span!.id))?.metricInfo?.[s.scorer.name]?.status_type).toBe('pending');
      expect(await right(r.scoringQueue.complete(fresh!, success(0.3), now(), null))).toBe(true);
      expect((await recordOf(s.run, span!.id))?.metrics[s.scorer.name]).toBe(0.3);
    });

    it('removes the jobs of records retention removes', async () => {
      const s = await scene();
      const old = aRecord(s.run, { type: 'llm', traceId: s.trace.id, parentId: null, createdAt: at('2001-01-01T00:00:00.000Z') });
      await ingestScored(s.run, [old], s.scorer);
      let removed = 0;
      for (;;) {
        const n = await right(r.logRecords.removeCreatedBefore(at('2001-06-01T00:00:00.000Z'), 1000));
        removed += n;
        if (n < 1000) break;
      }
      expect(removed).toBeGreaterThanOrEqual(1);
      expect(await claimOf(s.run)).toEqual([]);
      expect(await right(r.scoringQueue.counts(s.run.id))).toEqual([]);
    });
  });
};
