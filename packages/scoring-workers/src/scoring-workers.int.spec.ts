// The workers' loop and a job's life on real parts: a SQLite file, the OpenAI-compatible adapter and
// the testkit's stub over real HTTP. What the black-box suites cannot reach: a record gone or retyped
// before its job runs, a lease kept alive past its length while a judge is slow, a stop mid-job.
import type { ClaimedJob, LogRecord, Scorer } from '@tracelight/domain';
import { AesGcmSecretSealer, SystemClock, TimeOrderedUuid4IdGenerator } from '@tracelight/credentials';
import { OpenAiJudgeModel } from '@tracelight/openai-gateway';
import type { Repositories } from '@tracelight/ports';
import { SqliteDatabase, sqliteRepositories } from '@tracelight/sqlite';
import { OpenAiStub, aProject, aRecord, aRun, aScorer, aUser, anLlmVersion, judges, right } from '@tracelight/testkit';
import { ProjectUseCases, ScorerUseCases, gatewaySecretContext } from '@tracelight/use-cases';
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
  const scoring = (settings: Partial<{ scoringWorkers: number; scoringLeaseMs: number; scoringMaxAttempts: number }> = {}) => {
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
      { queue: r.scoringQueue, records: r.logRecords, scorers, versions: r.scorerVersions, integrations: r.integrations, sealer, clock, judge: new OpenAiJudgeModel({ timeoutMs: 5_000, concurrencyPerGateway: 4 }) },
      { scoringWorkers: 2, scoringLeaseMs: 60_000, scoringPollMs: 20, scoringMaxAttempts: 2, scoringRetryBaseMs: 10, ...settings },
      `test-${Math.random()}`,
      log,
    );
  };

  /** A user with a gateway to the stub, a scorer with an LLM version (one judge) on a run. */
  const scene = async () => {
    const user = await right(r.users.insert(aUser()));
    const now = new Date();
    await right(
      r.integrations.upsert({
        id: new TimeOrderedUuid4IdGenerator().next() as never,
        provider: 'gateway',
        name: 'gateway',
        createdBy: user.id,
        createdAt: now,
        updatedAt: now,
        settings: { endpoint: stub.url, use_case: 'TEST' },
        sealedSecret: sealer.seal('stub-token', gatewaySecretContext(user.id)),
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
  afterAll(() => db.close());
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
});
