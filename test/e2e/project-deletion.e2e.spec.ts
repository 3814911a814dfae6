// Deleting a project over HTTP: it is gone from every route at once, for its owner only, and its name is
// free again; everything under it goes from the database (SQLite's file, or the MongoDB database) as the
// server purges it in the background; and ingestion racing the deletion leaves nothing behind.
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TracelightClient, TracelightError } from '@tracelight/client';
import { ADMIN } from '../support/server';
import type { Auth } from '../support/http';
import { describeSqliteOnly, withStorage } from '../support/storage';
import { startWorld, type World } from '../support/world';

// better-sqlite3 belongs to the SQLite adapter; the check of SQLite's file reads it through it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const Database = require(path.resolve(__dirname, '../../adapters/sqlite/node_modules/better-sqlite3')) as typeof import('better-sqlite3');

let w: World;
beforeAll(async () => {
  // Bodies of 2 KB or more go to the offload worker, whose container remembers projects and runs of
  // its own; a minute, so that what it remembers outlives the deletion within each test.
  w = await startWorld({ TRACELIGHT_OFFLOAD_MIN_BYTES: '2048', TRACELIGHT_CREDENTIAL_CACHE_MS: '60000' });
});
afterAll(() => w.server.stop());

/**
 * Rows (documents) naming the project or one of the runs, per table (collection), in every table of the
 * server's database (found in the database, so a table added later is looked at too).
 */
const rowsNaming = (projectId: string, runIds: ReadonlyArray<string>): Promise<Record<string, number>> =>
  withStorage(w.server, (stored) => stored.rowsNaming(projectId, runIds));

const aTrace = (padding = 0) => ({
  id: randomUUID(),
  name: 'chat',
  input: `question ${'x'.repeat(padding)}`,
  output: 'answer',
  tags: ['prod'],
  spans: [{ type: 'llm', id: randomUUID(), input: 'q', output: 'a', model: 'gpt-4o-mini' }],
});

/** A project with a log stream and an experiment, each with traces, a session, insights and scorer settings. */
const aFullProject = async (auth: Auth, name = `doomed-${randomUUID()}`) => {
  const projectId = await w.project(auth, name);
  const stream = await w.run(auth, projectId, 'log_streams', 'production');
  const experiment = await w.run(auth, projectId, 'experiments', 'nightly');
  const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth, json: { name: `s-${randomUUID()}`, scorer_type: 'llm' } })).id as string;
  for (const [scope, runId] of [['log_stream_id', stream], ['experiment_id', experiment]] as const) {
    w.ok(await w.call('POST', `/v2/projects/${projectId}/traces`, { auth, json: { [scope]: runId, traces: [aTrace(), aTrace()] } }));
    w.ok(await w.call('POST', `/v2/projects/${projectId}/sessions`, { auth, json: { [scope]: runId, name: 'a conversation' } }));
    w.ok(await w.call('PATCH', `/v2/projects/${projectId}/runs/${runId}/insights-settings`, { auth, json: { insights: { logstream: { enabled: true } } } }));
    w.ok(await w.call('POST', `/v2/projects/${projectId}/runs/${runId}/scorer-settings`, { auth, json: { scorers: [{ scorer_id: scorer }] } }));
  }
  return { projectId, name, stream, experiment, scorer };
};

/** Every read of the project and its runs, by status (and body where the project is listed). */
const everyRead = async (auth: Auth, p: { projectId: string; name: string; stream: string; experiment: string }) => {
  const { projectId, stream, experiment } = p;
  const statuses: Record<string, number> = {};
  const status = async (label: string, method: string, url: string, json?: unknown) => {
    statuses[label] = (await w.call(method, url, { auth, ...(json !== undefined ? { json } : {}) })).status;
  };
  await status('get', 'GET', `/v2/projects/${projectId}`);
  await status('log streams', 'GET', `/v2/projects/${projectId}/log_streams`);
  await status('experiments', 'GET', `/v2/projects/${projectId}/experiments`);
  for (const runId of [stream, experiment]) {
    const run = runId === stream ? 'stream' : 'experiment';
    const scope = runId === stream ? 'log_stream_id' : 'experiment_id';
    await status(`${run} insights`, 'GET', `/v2/projects/${projectId}/runs/${runId}/insights-settings`);
    await status(`${run} scorer settings`, 'GET', `/v2/projects/${projectId}/runs/${runId}/scorer-settings`);
    await status(`${run} columns`, 'POST', `/v2/projects/${projectId}/spans/available_columns`, { [scope]: runId });
    for (const kind of ['traces', 'spans', 'sessions']) await status(`${run} ${kind} search`, 'POST', `/v2/projects/${projectId}/${kind}/search`, { [scope]: runId });
  }
  const listed = w.ok(await w.call('GET', '/v2/projects', { auth })).filter((x: { id: string }) => x.id === projectId).length;
  const byName = w.ok(await w.call('GET', `/v2/projects?project_name=${encodeURIComponent(p.name)}`, { auth })).length;
  return { statuses, listed, byName };
};

const all = (status: number) => ({
  statuses: Object.fromEntries(
    ['get', 'log streams', 'experiments', ...['stream', 'experiment'].flatMap((r) => ['insights', 'scorer settings', 'columns', 'traces search', 'spans search', 'sessions search'].map((x) => `${r} ${x}`))].map((k) => [k, status]),
  ),
  listed: status === 200 ? 1 : 0,
  byName: status === 200 ? 1 : 0,
});

describe('DELETE /v2/projects/{project_id}', () => {
  it('removes the owner’s project with its runs, records and settings from every route and from storage; the name is free again', async () => {
    const p = await aFullProject(w.admin);
    expect(await everyRead(w.admin, p)).toEqual(all(200));
    expect(await rowsNaming(p.projectId, [p.stream, p.experiment])).toEqual({ log_records: 10, projects: 1, run_columns: expect.any(Number), run_insights: 2, run_scorer_settings: 2, runs: 2 });

    const deleted = await w.call('DELETE', `/v2/projects/${p.projectId}`, { auth: w.admin });
    expect([deleted.status, deleted.body]).toEqual([200, { message: 'Project deleted' }]);

    // Gone from every route at once, purged from the file in the background.
    expect(await everyRead(w.admin, p)).toEqual(all(404));
    await w.purged(p.projectId);
    expect(await rowsNaming(p.projectId, [p.stream, p.experiment])).toEqual({});
    // Nothing more can be written under it.
    const writes: Array<[string, string, unknown]> = [
      ['POST', `/v2/projects/${p.projectId}/log_streams`, { name: 'again' }],
      ['POST', `/v2/projects/${p.projectId}/traces`, { log_stream_id: p.stream, traces: [aTrace()] }],
      ['POST', `/v2/projects/${p.projectId}/sessions`, { log_stream_id: p.stream, name: 'late' }],
      ['PATCH', `/v2/projects/${p.projectId}/runs/${p.stream}/insights-settings`, {}],
      ['POST', `/v2/projects/${p.projectId}/runs/${p.stream}/scorer-settings`, { scorers: [] }],
    ];
    for (const [method, url, json] of writes) expect([method, url, (await w.call(method, url, { auth: w.admin, json })).status]).toEqual([method, url, 404]);
    expect(await rowsNaming(p.projectId, [p.stream, p.experiment])).toEqual({});
    // Deleted once: a second time is as for any unknown project.
    expect((await w.call('DELETE', `/v2/projects/${p.projectId}`, { auth: w.admin })).status).toBe(404);
    // The scorer is its owner's, not the project's.
    expect((await w.call('GET', `/v2/scorers/${p.scorer}`, { auth: w.admin })).status).toBe(200);

    // The name, and the runs' names, can be used again: a new, empty project.
    const again = w.ok(await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: p.name } }));
    expect(again.id).not.toBe(p.projectId);
    const stream = await w.run(w.admin, again.id, 'log_streams', 'production');
    expect(w.ok(await w.call('POST', `/v2/projects/${again.id}/traces/search`, { auth: w.admin, json: { log_stream_id: stream } })).records).toEqual([]);
    expect(w.ok(await w.call('GET', `/v2/projects?project_name=${encodeURIComponent(p.name)}`, { auth: w.admin }))).toEqual([again]);
  });

  it('answers another user 404, as for a project that does not exist, and the project survives whole', async () => {
    const p = await aFullProject(w.admin);
    const before = await rowsNaming(p.projectId, [p.stream, p.experiment]);
    const other = await w.user(`deleter-${randomUUID()}@example.com`);
    const theirs = await w.call('DELETE', `/v2/projects/${p.projectId}`, { auth: other.auth });
    const unknown = await w.call('DELETE', `/v2/projects/${randomUUID()}`, { auth: other.auth });
    expect([theirs.status, theirs.body]).toEqual([404, { detail: 'Project not found' }]);
    expect([unknown.status, unknown.body]).toEqual([theirs.status, theirs.body]);
    expect(await everyRead(w.admin, p)).toEqual(all(200));
    expect(await rowsNaming(p.projectId, [p.stream, p.experiment])).toEqual(before);
  });

  it('takes every credential scheme the other project routes take; none is 401, a read-only user 403', async () => {
    const apiKey = await w.apiKey(w.admin);
    const schemes: Array<[string, Auth]> = [
      ['Service-API-Key', { apiKey }],
      ['Service-AO-API-Key', { apiKey, header: 'Service-AO-API-Key' }],
      ['Galileo-API-Key', { apiKey, header: 'Galileo-API-Key' }],
      ['Splunk-AO-API-Key', { apiKey, header: 'Splunk-AO-API-Key' }],
      ['Bearer', w.admin],
      ['Basic', { basic: ADMIN }],
    ];
    for (const [scheme, auth] of schemes) {
      const projectId = await w.project(w.admin);
      const r = await w.call('DELETE', `/v2/projects/${projectId}`, { auth });
      expect([scheme, r.status, (await w.call('GET', `/v2/projects/${projectId}`, { auth: w.admin })).status]).toEqual([scheme, 200, 404]);
    }
    const kept = await w.project(w.admin);
    const anonymous = await w.call('DELETE', `/v2/projects/${kept}`);
    expect([anonymous.status, anonymous.body, anonymous.headers.get('www-authenticate')]).toEqual([401, { detail: 'Not authenticated' }, expect.any(String)]);
    const readerEmail = `reader-${randomUUID()}@example.com`;
    w.ok(await w.call('POST', '/v2/users', { auth: w.admin, json: { email: readerEmail, password: 'reader password', role: 'read_only' } }));
    const reader = { bearer: await w.login(readerEmail, 'reader password') };
    expect((await w.call('DELETE', `/v2/projects/${kept}`, { auth: reader })).status).toBe(403);
    expect((await w.call('GET', `/v2/projects/${kept}`, { auth: w.admin })).status).toBe(200);
  });

  it('answers 422 with detail[] for a malformed id', async () => {
    for (const bad of ['not-a-uuid', '00000000-0000-0000-0000-00000000000g', '1']) {
      const r = await w.call('DELETE', `/v2/projects/${bad}`, { auth: w.admin });
      expect([bad, r.status, r.body.detail]).toEqual([bad, 422, [expect.objectContaining({ loc: ['path', 'project_id'], type: 'uuid_parsing', input: bad, msg: expect.any(String) })]]);
    }
  });

  it('through the typed client', async () => {
    const client = new TracelightClient(w.server.baseUrl, { login: ADMIN });
    const project = await client.createProject({ name: `client-${randomUUID()}` });
    expect(await client.deleteProject(project.id)).toEqual({ message: 'Project deleted' });
    const gone = await client.getProject(project.id).catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(TracelightError);
    expect((gone as TracelightError).status).toBe(404);
    expect(((await client.deleteProject(project.id).catch((e: unknown) => e)) as TracelightError).status).toBe(404);
  });
});

describe('ingestion racing a deletion', () => {
  it('refuses an ingest that arrives after the deletion, even where the project is still remembered (an offload worker), storing nothing', async () => {
    const p = await aFullProject(w.admin);
    // A large body: handled by the offload worker, which from now on remembers the project and the run.
    w.ok(await w.call('POST', `/v2/projects/${p.projectId}/traces`, { auth: w.admin, json: { log_stream_id: p.stream, traces: [aTrace(4096)] } }));
    expect((await w.call('DELETE', `/v2/projects/${p.projectId}`, { auth: w.admin })).status).toBe(200);
    const offloaded = await w.call('POST', `/v2/projects/${p.projectId}/traces`, { auth: w.admin, json: { log_stream_id: p.stream, traces: [aTrace(4096)] } });
    const inline = await w.call('POST', `/v2/projects/${p.projectId}/traces`, { auth: w.admin, json: { log_stream_id: p.stream, traces: [aTrace()] } });
    expect([offloaded.status, inline.status]).toEqual([404, 404]);
    await w.purged(p.projectId);
    expect(await rowsNaming(p.projectId, [p.stream, p.experiment])).toEqual({});
  });

  it('leaves no record behind of ingests sent while the project is being deleted: each is stored and removed with it, or refused', async () => {
    const p = await aFullProject(w.admin);
    const ingest = (i: number) =>
      w.call('POST', `/v2/projects/${p.projectId}/traces`, { auth: w.admin, json: { [i % 2 ? 'log_stream_id' : 'experiment_id']: i % 2 ? p.stream : p.experiment, traces: [aTrace(i % 3 ? 0 : 4096), aTrace()] } });
    // Forty ingests at once (a third of them through the offload worker); the deletion is sent once the
    // first has been answered, while the others are being parsed, checked and written.
    const ingests = Array.from({ length: 40 }, (_, i) => ingest(i));
    const deletion = Promise.race(ingests).then(() => w.call('DELETE', `/v2/projects/${p.projectId}`, { auth: w.admin }));
    const statuses = (await Promise.all(ingests)).map((r) => r.status);
    expect((await deletion).status).toBe(200);
    expect(statuses.filter((s) => s !== 200 && s !== 404)).toEqual([]);
    await w.purged(p.projectId);
    expect(await rowsNaming(p.projectId, [p.stream, p.experiment])).toEqual({});
    expect(await everyRead(w.admin, p)).toEqual(all(404));
  });
});

describe('a deletion of many records', () => {
  it('is answered at once; the purge then removes its records a step at a time, and other projects are written in between', async () => {
    const projectId = await w.project(w.admin, `large-${randomUUID()}`);
    const stream = await w.run(w.admin, projectId, 'log_streams', 'production');
    const many = { name: 'many', input: 'q', output: 'a', spans: Array.from({ length: 9_999 }, () => ({ type: 'llm', input: 'q', output: 'a' })) };
    for (let i = 0; i < 3; i++) w.ok(await w.call('POST', `/v2/projects/${projectId}/traces`, { auth: w.admin, json: { log_stream_id: stream, traces: [many] } }));
    const other = await w.project(w.admin, `bystander-${randomUUID()}`);
    const otherStream = await w.run(w.admin, other, 'log_streams', 'production');
    await withStorage(w.server, async (stored) => {
      expect(await stored.recordCount(stream)).toBe(30_000);
      // Answered before its records go: the purge takes them after (it looks once a second).
      expect((await w.call('DELETE', `/v2/projects/${projectId}`, { auth: w.admin })).status).toBe(200);
      expect(await stored.recordCount(stream)).toBe(30_000);
      expect((await w.call('GET', `/v2/projects/${projectId}`, { auth: w.admin })).status).toBe(404);
      // Under way: some of its records are gone (committed), not all.
      let left = 30_000;
      while (left === 30_000) {
        await new Promise((r) => setTimeout(r, 2));
        left = await stored.recordCount(stream);
      }
      // A write to another project goes between the steps, not behind the whole purge.
      const patch = await w.call('PATCH', `/v2/projects/${other}/runs/${otherStream}/insights-settings`, { auth: w.admin, json: { insights: { logstream: { enabled: true } } } });
      expect([left > 0, patch.status, (await stored.recordCount(stream)) > 0]).toEqual([true, 200, true]);
      await w.purged(projectId);
      expect(await stored.rowsNaming(projectId, [stream])).toEqual({});
    });
  });
});

// On MongoDB, what its files keep of a deleted document is its storage engine's business, out of reach here.
describeSqliteOnly("what a deletion leaves in SQLite's file", () => {
  it('nothing of the deleted records: their pages are overwritten, not only freed', async () => {
    const own = await startWorld();
    const dir = own.server.dataDir;
    try {
      const marker = `deleted-text-${randomUUID()}`;
      const projectId = await own.project(own.admin, `wiped-${randomUUID()}`);
      const stream = await own.run(own.admin, projectId, 'log_streams', 'production');
      // Small records (within a page) and a large one (overflow pages), beside a project that stays.
      const traces = [...Array.from({ length: 50 }, () => ({ name: 'chat', input: marker, output: marker, spans: [{ type: 'llm', input: marker, output: 'a' }] })), { name: 'big', input: marker.repeat(2_000), output: 'a', spans: [] }];
      own.ok(await own.call('POST', `/v2/projects/${projectId}/traces`, { auth: own.admin, json: { log_stream_id: stream, traces } }));
      const kept = await own.project(own.admin, `kept-${randomUUID()}`);
      const keptStream = await own.run(own.admin, kept, 'log_streams', 'production');
      own.ok(await own.call('POST', `/v2/projects/${kept}/traces`, { auth: own.admin, json: { log_stream_id: keptStream, traces: [{ name: 'kept', input: 'kept text', output: 'a', spans: [] }] } }));
      expect((await own.call('DELETE', `/v2/projects/${projectId}`, { auth: own.admin })).status).toBe(200);
      await own.purged(projectId);
    } finally {
      expect(await own.server.stop()).toBe(0);
    }
    // Everything the write-ahead log holds goes into the file, and the log is emptied (it also holds the
    // pages as they were written before the deletion, until later writes take its place).
    const db = new Database(path.join(dir, 'tracelight.db'));
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('tracelight.db'));
    const bytes = Buffer.concat(files.map((f) => fs.readFileSync(path.join(dir, f))));
    expect([bytes.includes('deleted-text-'), bytes.includes('kept text')]).toEqual([false, true]);
  });
});
