// The workers' loop and a job's life on real parts: a SQLite file, the OpenAI-compatible adapter and
// the testkit's stub over real HTTP. What the black-box suites cannot reach: a record gone or retyped
// before its job runs, a lease kept alive past its length while a judge is slow, a stop mid-job.
import type { ClaimedJob, LogRecord, Scorer } from '@tracelight/domain';
import { AesGcmSecretSealer, SystemClock, TimeOrderedUuid4IdGenerator } from '@tracelight/credentials';
import { OpenAiJudgeModel } from '@tracelight/openai-gateway';
import type { Repositories } from '@tracelight/ports';
import { SqliteDatabase, sqliteRepositories } from '@tracelight/sqlite';
import { OpenAiStub, aProject, aRecord, aRun, aScorer, aUser, anLlmVersion, judges, right } from '@tracelight/testkit';
import { NO_GATEWAY_MESSAGE, ProjectUseCases, ScorerUseCases, gatewaySecretContext } from '@tracelight/use-cases';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { composeScoring } from './compose';
import type { ScoringLog } from './scoring-worker-pool';

const lines: Array<{ level: string; message: string; fields: Record<string, unknown> }> = [];
const log: ScoringLog = {
  info: (fields, message) => lines.push({ level: 'info', message, fields }),
  warn: (fields, message) => lines.push({ level: 'warn', message, fields }),
  error: (fields, message) => lines.push({ level: 'error', message, fields }),
};

describe('scoring workers on SQLite through the OpenAI-compatible adapter', () => {
  let db: SqliteDatabase;
  let r: Repositories;
  let stub: OpenAiStub;
  const clock = new SystemClock();
  const sealer = new AesGcmSecretSealer({ secretKey: Buffer.alloc(32, 7), tokenTtlSeconds: 60, refreshTokenTtlSeconds: 60, passwordCacheTtlSeconds: 0, passwordCost: 15 });
  const scoring = (settings: Partial<{ scoringWorkers: number; scoringLeaseMs: number; scoringMaxAttempts: number; setupWarnEveryMs: number }> = {}, allowedNetworks: ReadonlyArray<string> = ['127.0.0.1/32']) => {
    const scorers = new ScorerUseCases({
      projects: new ProjectUseCases({ projects: r.projects, runs: r.runs, clock, ids: new TimeOrderedUuid4IdGenerator() }),
      scorers: r.scorers,
      versions: r.scorerVersions,
      runScorers: r.runScorers,
      clock,
      ids: new TimeOrderedUuid4IdGenerator(),
      pageBytes: 1 << 20,
    });
    return composeScoring(
      { queue: r.scoringQueue, records: r.logRecords, scorers, versions: r.scorerVersions, integrations: r.integrations, sealer, clock, judge: judgeModel(allowedNetworks) },
      { scoringWorkers: 2, scoringLeaseMs: 60_000, scoringPollMs: 20, scoringMaxAttempts: 2, scoringRetryBaseMs: 10, ...settings },
      `test-${Math.random()}`,
      log,
    );
  };

  const models: OpenAiJudgeModel[] = [];
  const judgeModel = (allowedNetworks: ReadonlyArray<string>) => {
    const model = new OpenAiJudgeModel({ timeoutMs: 5_000, concurrencyPerGateway: 4, allowedNetworks });
    models.push(model);
    return model;
  };

  /** A user with a gateway to the stub (its token `token`; none unless `withGateway`), a scorer with an LLM version (one judge) on a run. */
  const scene = async (token = 'stub-token', withGateway = true) => {
    const user = await right(r.users.insert(aUser()));
    const now = new Date();
    if (withGateway)
      await right(
        r.integrations.upsert({
          id: new TimeOrderedUuid4IdGenerator().next() as never,
          provider: 'gateway',
          name: 'gateway',
          createdBy: user.id,
          createdAt: now,
          updatedAt: now,
          settings: { endpoint: stub.url, use_case: 'TEST' },
          sealedSecret: sealer.seal(token, gatewaySecretContext(user.id)),
          permissions: [],
          isSelected: false,
          isDisabled: false,
        }),
      );
    const run = await right(r.runs.insert(aRun(await right(r.projects.insert(aProject(user.id))))));
    const scorer: Scorer = await right(r.scorers.insert(aScorer(user.id)));
    const version = await right(r.scorerVersions.appendNext(scorer.id, (n) => ({ ...anLlmVersion(scorer, n), numJudges: 1 })));
    await right(r.runScorers.replace({ runId: run.id, scorers: [{ scorerId: scorer.id, version: null }], updatedAt: now }));
    const job = (record: LogRecord) => ({ runId: run.id, projectId: run.projectId, recordId: record.id, traceId: record.traceId, scorerId: scorer.id, version: version.version, kind: 'llm' as const, metricName: scorer.name, ownerId: user.id });
    const ingest = async (records: LogRecord[]) => right(r.logRecords.ingest(run.id, records, [], records.filter((x) => x.type === 'llm').map(job)));
    const recordOf = async (id: string) => (await right(r.logRecords.findByIds(run.id, [id])))[0];
    return { user, run, scorer, ingest, recordOf };
  };
  const claimAll = async (jobs: ReturnType<typeof scoring>['jobs'], runId: string): Promise<ClaimedJob[]> =>
    (await right(jobs.claim('claimer', 100, 60_000))).filter((j) => j.runId === runId);

  beforeAll(async () => {
    db = new SqliteDatabase({ path: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-scoring-')), 'db.sqlite') });
    r = sqliteRepositories(db);
  });
  afterAll(async () => {
    db.close();
    for (const m of models) await m.close();
  });
  beforeEach(async () => {
    stub = await OpenAiStub.start();
    stub.answerWith(judges(true));
  });
  afterEach(() => stub.close());

  it('ends a job whose record is gone, or was sent again as a type its version does not score, not_applicable', async () => {
    const s = await scene();
    const gone = aRecord(s.run, { type: 'llm', parentId: null, createdAt: new Date('2001-01-01T00:00:00.000Z') });
    const retyped = aRecord(s.run, { type: 'llm', parentId: null });
    await s.ingest([gone, retyped]);
    const { jobs } = scoring();
    const claimed = await claimAll(jobs, s.run.id);
    // Once claimed: one record removed (retention), the other sent again as a tool span.
    await right(r.logRecords.removeCreatedBefore(new Date('2002-01-01T00:00:00.000Z'), 1_000));
    await s.ingest([{ ...retyped, type: 'tool' }]);
    expect((await jobs.run(claimed.find((j) => j.recordId === gone.id)!)).outcome).toMatchObject({ state: 'not_applicable', message: 'the record is no longer stored' });
    const report = await jobs.run(claimed.find((j) => j.recordId === retyped.id)!);
    expect(report).toMatchObject({ stored: true, outcome: { state: 'not_applicable', message: 'the record is a tool, which version 1 does not score' } });
    expect((await s.recordOf(retyped.id))?.metricInfo?.[s.scorer.name]).toMatchObject({ status_type: 'not_applicable' });
    expect(stub.completions).toHaveLength(0);
  });

  it('retries a failing judge after a backoff, then fails it with the last reason once its attempts are spent', async () => {
    const s = await scene();
    const span = aRecord(s.run, { type: 'llm', parentId: null });
    await s.ingest([span]);
    const { jobs } = scoring({ scoringMaxAttempts: 2 });
    stub.failNext({ kind: 'status', status: 503 }, 2);
    const [first] = await claimAll(jobs, s.run.id);
    const once = await jobs.run(first!);
    expect(once.outcome).toMatchObject({ state: 'retry', message: 'the gateway answered 503: stub fault 503' });
    await new Promise((resolve) => setTimeout(resolve, 50)); // past the 10-20 ms backoff
    const [second] = await claimAll(jobs, s.run.id);
    expect(second).toMatchObject({ attempts: 2 });
    const twice = await jobs.run(second!);
    expect(twice.outcome).toMatchObject({ state: 'failed', message: 'gave up after 2 attempts: the gateway answered 503: stub fault 503' });
    expect((await s.recordOf(span.id))?.metricInfo?.[s.scorer.name]).toMatchObject({ status_type: 'failed' });
  });

  it('keeps a job held past its lease while its judge is slow, and finishes the jobs in hand when stopped', async () => {
    await stub.close();
    stub = await OpenAiStub.start({ delayMs: 700 });
    stub.answerWith(judges(true));
    const s = await scene();
    const spans = [0, 1].map(() => aRecord(s.run, { type: 'llm', parentId: null }));
    await s.ingest(spans);
    const { pool, jobs } = scoring({ scoringWorkers: 2, scoringLeaseMs: 300 });
    pool.start();
    // While the judge answers (700 ms, past the 300 ms lease), the lease is renewed: no other claim gets the jobs.
    await new Promise((resolve) => setTimeout(resolve, 450));
    expect(pool.inFlight).toBe(2);
    expect(await claimAll(jobs, s.run.id)).toEqual([]);
    await pool.stop(5_000);
    expect(stub.completions).toHaveLength(2);
    for (const span of spans) expect((await s.recordOf(span.id))?.metrics[s.scorer.name]).toBe(1);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('scrubs the token from what the judges answered and from every message stored or logged, in its encoded forms too', async () => {
    const token = 'sk-BOBSECRET-0123456789abcdef+/=xyz';
    const forms = [token, encodeURIComponent(token), Buffer.from(token).toString('base64'), Buffer.from(`Bearer ${token}`).toString('base64url')];
    const s = await scene(token);
    const [quoting, garbling, refused] = [0, 1, 2].map(() => aRecord(s.run, { type: 'llm', parentId: null }));
    await s.ingest([quoting!, garbling!, refused!]);
    const { jobs, pool } = scoring({ scoringMaxAttempts: 1 });
    const claimed = await claimAll(jobs, s.run.id);
    const jobOf = (id: string) => claimed.find((j) => j.recordId === id)!;
    // A judge that repeats the key in its explanation: a success, its explanation without it.
    stub.answerWith(() => JSON.stringify({ explanation: `your key is ${forms.join(' and ')}`, rating: true }));
    expect((await jobs.run(jobOf(quoting!.id))).outcome.state).toBe('success');
    expect((await s.recordOf(quoting!.id))?.metricInfo?.[s.scorer.name]).toMatchObject({
      explanation: 'your key is [redacted] and [redacted] and [redacted] and [redacted]',
      explanations: ['your key is [redacted] and [redacted] and [redacted] and [redacted]'],
    });
    // An answer that does not parse is quoted in the message: scrubbed.
    stub.answerWith(() => `no JSON here, only ${forms[2]}`);
    const garbled = await jobs.run(jobOf(garbling!.id));
    expect(garbled.outcome).toMatchObject({ state: 'failed', message: 'gave up after 1 attempts: the judge\'s answer is not a JSON object: "no JSON here, only [redacted]"' });
    // A provider that echoes the key, encoded, in its refusal.
    stub.failNext({ kind: 'status', status: 401, message: `bad key ${forms[1]}` });
    const report = await jobs.run(jobOf(refused!.id));
    expect(report.outcome).toMatchObject({ state: 'failed', message: 'the gateway answered 401: bad key [redacted]' });
    // The workers log a failure once, at warn, scrubbed too.
    stub.answerWith(() => `no JSON here, only ${forms[3]}`);
    const logged = aRecord(s.run, { type: 'llm', parentId: null });
    await s.ingest([logged]);
    pool.start();
    for (let waited = 0; (await s.recordOf(logged.id))?.metricInfo?.[s.scorer.name]?.status_type !== 'failed'; waited += 20) {
      if (waited > 20_000) throw new Error('the job was not scored');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await pool.stop(5_000);
    expect(lines.filter((l) => l.level === 'warn' && l.fields['record_id'] === logged.id)).toEqual([
      expect.objectContaining({ message: 'scoring job failed', fields: expect.objectContaining({ reason: 'gave up after 1 attempts: the judge\'s answer is not a JSON object: "no JSON here, only [redacted]"' }) }),
    ]);
    // Nothing stored or logged holds any form of it.
    const stored = JSON.stringify(await right(r.logRecords.findByIds(s.run.id, [quoting!.id, garbling!.id, refused!.id, logged.id])));
    const counted = JSON.stringify(await right(r.scoringQueue.counts(s.run.id)));
    for (const form of forms) for (const text of [stored, counted, JSON.stringify(lines)]) expect(text).not.toContain(form);
  });

  it('logs the jobs that end in error for their owner\'s setup once per owner and reason per period, not once per job', async () => {
    const [carol, dave] = [await scene(undefined, false), await scene(undefined, false)];
    const hers = [0, 1, 2, 3, 4].map(() => aRecord(carol.run, { type: 'llm', parentId: null }));
    const his = [0, 1].map(() => aRecord(dave.run, { type: 'llm', parentId: null }));
    await carol.ingest(hers);
    await dave.ingest(his);
    const settled = async (s: typeof carol, records: LogRecord[]) => {
      for (let waited = 0; ; waited += 20) {
        const stored = await right(r.logRecords.findByIds(s.run.id, records.map((x) => x.id)));
        if (stored.every((x) => x.metricInfo?.[s.scorer.name]?.status_type === 'error')) return;
        if (waited > 20_000) throw new Error('the jobs did not end');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const lineOf = (ownerId: string) => lines.filter((l) => l.level === 'warn' && l.fields['owner_id'] === ownerId);
    const { pool } = scoring();
    pool.start();
    try {
      await settled(carol, hers);
      await settled(dave, his);
    } finally {
      await pool.stop(5_000);
    }
    for (const s of [carol, dave])
      expect(lineOf(s.user.id)).toEqual([expect.objectContaining({ fields: expect.objectContaining({ state: 'error', reason: NO_GATEWAY_MESSAGE, alike_since_last: 0 }) })]);
    // Without the period (0): a line per job, as before.
    const more = [0, 1].map(() => aRecord(carol.run, { type: 'llm', parentId: null }));
    await carol.ingest(more);
    const every = scoring({ setupWarnEveryMs: 0 }).pool;
    every.start();
    try {
      await settled(carol, more);
    } finally {
      await every.stop(5_000);
    }
    expect(lineOf(carol.user.id)).toHaveLength(3);
  });

  it('ends a job in error, calling nothing, when the gateway\'s address is one judges may not call', async () => {
    const s = await scene();
    const span = aRecord(s.run, { type: 'llm', parentId: null });
    await s.ingest([span]);
    const { jobs } = scoring({}, []);
    const [job] = await claimAll(jobs, s.run.id);
    const report = await jobs.run(job!);
    const message = "the gateway's address 127.0.0.1 is loopback: judges call public addresses only; an operator may allow it with TRACELIGHT_GATEWAY_ALLOWED_NETWORKS";
    expect(report).toMatchObject({ stored: true, ownerSetup: true, outcome: { state: 'error', message } });
    expect((await s.recordOf(span.id))?.metricInfo?.[s.scorer.name]).toEqual({ status_type: 'error', scorer_type: 'llm', version: 1, message });
    expect(stub.requests).toHaveLength(0);
  });
});
