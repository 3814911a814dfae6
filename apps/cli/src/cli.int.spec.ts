// The admin CLI on a real data dir, as an operator runs it; the keys it mints work on the server.
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { MIGRATIONS, SqliteDatabase, sqliteRepositories } from '@tracelight/sqlite';
import { AesGcmSecretSealer, keyId } from '@tracelight/credentials';
import { type UserId, asId } from '@tracelight/domain';
import { aProject, aRecord, aRun, aUser, anIntegration, right } from '@tracelight/testkit';
import { ExportRaced, exportProject } from './project-transfer';
import { partialName } from './whole-file';
import { track } from '../../../test/support/started';

const CLI = path.resolve(__dirname, '../dist/main.js');
const SERVER = path.resolve(__dirname, '../../server/dist/main.js');

/** The CLI run on `dataDir`, with `env` beside it (the server's other variables). */
const adminWith = (env: Readonly<Record<string, string>>, dataDir: string, ...args: string[]) =>
  promisify(execFile)(process.execPath, [CLI, ...args], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir, ...env } });
const admin = (dataDir: string, ...args: string[]) => adminWith({}, dataDir, ...args);

describe('tracelight-admin', () => {
  /** The server on the same data dir, with `env` besides; its base URL once it listens. */
  const serve = async (dataDir: string, env: Readonly<Record<string, string>> = {}) => {
    const child = execFile(process.execPath, [SERVER], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir, TRACELIGHT_PORT: '0', ...env } });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    // Stopped once the file is done, should a test not get that far.
    void exited.then(track({ name: `a server (pid ${child.pid})`, stop: () => (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'), exited) }));
    const port = await new Promise<number>((resolve, reject) => {
      let said = '';
      child.stdout!.on('data', (c: Buffer) => {
        said += c.toString();
        const m = /"port":(\d+)/.exec(said);
        if (m) resolve(Number(m[1]));
      });
      void exited.then(() => reject(new Error(`the server exited before listening:\n${said}`)));
    });
    return { child, base: `http://127.0.0.1:${port}` };
  };
  /** A new API key of owner@example.com, who setUp made. */
  const keyOf = async (dataDir: string) =>
    JSON.parse((await admin(dataDir, 'create-api-key', '--email', 'owner@example.com', '--description', 'again')).stdout).api_key as string;
  const setUp = async (dataDir: string) => {
    await admin(dataDir, 'create-user', '--email', 'owner@example.com', '--password', 'owner password!');
    return JSON.parse((await admin(dataDir, 'create-api-key', '--email', 'owner@example.com', '--description', 'k')).stdout).api_key as string;
  };
  const call = async (base: string, key: string, method: string, p: string, json?: unknown) => {
    const res = await fetch(base + p, { method, headers: { 'Service-API-Key': key, 'content-type': 'application/json' }, ...(json ? { body: JSON.stringify(json) } : {}) });
    expect([p, res.status]).toEqual([p, 200]);
    return res.json() as Promise<any>;
  };

  /**
   * A project's export of `count` records, made up as the CLI writes one, each carrying `size` characters
   * of random text (large text is stored deflated: random text keeps its size), as its input or in its
   * metadata: stored and exported as it is too, but unread by the record index, whose terms of 40 MB of
   * random input took an import 5 s.
   */
  const madeUp = (count: number, size = 10, carriedIn: 'input' | 'metadata' = 'input') => {
    const at = '2026-01-02T03:04:05.000Z';
    const project = { id: randomUUID(), name: 'made up', type: 'gen_ai', createdBy: randomUUID(), createdAt: at, updatedAt: at };
    const run = { id: randomUUID(), projectId: project.id, name: 'prod', kind: 'log_stream', createdBy: project.createdBy, createdAt: at, updatedAt: at };
    const record = (i: number) => {
      const id = randomUUID();
      const text = randomBytes(size).toString('base64').slice(0, size);
      return { id, type: 'trace', projectId: project.id, runId: run.id, traceId: id, parentId: null, sessionId: null, name: `t${i}`, input: carriedIn === 'input' ? text : 'i', output: 'o', createdAt: at, updatedAt: at, tags: [], userMetadata: carriedIn === 'metadata' ? { text } : {}, statusCode: null, externalId: null, datasetInput: null, datasetOutput: null, datasetMetadata: {}, metrics: {}, isComplete: true, hasChildren: false, stepNumber: null, progressMessage: null, errorMessage: null, attributes: {} };
    };
    const lines: unknown[] = [
      { format: 'tracelight.project.v3', project },
      { run, insights: null },
      ...Array.from({ length: count }, (_, i) => ({ record: record(i) })),
      { end: { runs: 1, records: count } },
    ];
    return { project, run, lines };
  };
  /** `lines` written as JSON Lines to a new file in `dir`. */
  const jsonLines = (dir: string, name: string, lines: ReadonlyArray<unknown>) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    return file;
  };

  it('creates a user and an API key the server accepts, lists and revokes it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    const user = JSON.parse((await admin(dataDir, 'create-user', '--email', 'Ops@Example.com', '--password', 'operator password', '--role', 'admin')).stdout);
    expect(user).toEqual({ id: expect.any(String), email: 'ops@example.com', role: 'admin' });
    const key = JSON.parse((await admin(dataDir, 'create-api-key', '--email', 'ops@example.com', '--description', 'deploy bot')).stdout);
    expect(key.api_key).toMatch(/^tl_/);

    // The server remembers a resolved key for TRACELIGHT_CREDENTIAL_CACHE_MS: a key revoked by another
    // process (this CLI) stops working within that time.
    const cacheMs = 300;
    const server = await serve(dataDir, { TRACELIGHT_CREDENTIAL_CACHE_MS: String(cacheMs) });
    try {
      const asKey = () => fetch(`${server.base}/v2/current_user`, { headers: { 'Service-API-Key': key.api_key } });
      const me = await asKey();
      expect(me.status).toBe(200);
      expect(((await me.json()) as { email: string }).email).toBe('ops@example.com');

      const listed = (await admin(dataDir, 'list-api-keys', '--email', 'ops@example.com')).stdout.trim().split('\n').map((l) => JSON.parse(l));
      expect(listed.map((k: { id: string }) => k.id)).toEqual([key.id]);
      expect((await admin(dataDir, 'revoke-api-key', '--email', 'ops@example.com', '--id', key.id)).stdout).toBe('revoked\n');
      await new Promise((r) => setTimeout(r, cacheMs + 50));
      expect((await asKey()).status).toBe(401);
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('revokes a user’s sessions: every token signed in before stops working, on the server, at once with no cache', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    await admin(dataDir, 'create-user', '--email', 'lost-laptop@example.com', '--password', 'laptop password');
    const server = await serve(dataDir, { TRACELIGHT_CREDENTIAL_CACHE_MS: '0' });
    try {
      const base = server.base;
      const signIn = async () =>
        ((await (await fetch(`${base}/login`, { method: 'POST', body: new URLSearchParams({ username: 'lost-laptop@example.com', password: 'laptop password' }) })).json()) as { access_token: string }).access_token;
      const me = (token: string) => fetch(`${base}/v2/current_user`, { headers: { Authorization: `Bearer ${token}` } });
      const refresh = (token: string) => fetch(`${base}/v2/refresh_token`, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
      const stolen = await signIn();
      const renewed = ((await (await refresh(stolen)).json()) as { access_token: string }).access_token;
      expect((await me(renewed)).status).toBe(200);
      // Revoked at once, even within the second of the sign-in (tokens carry their start in whole seconds).
      expect((await admin(dataDir, 'revoke-sessions', '--email', 'lost-laptop@example.com')).stdout).toBe('sessions revoked: sign-ins before now no longer work\n');
      for (const token of [stolen, renewed]) {
        expect((await me(token)).status).toBe(401);
        expect((await refresh(token)).status).toBe(401);
      }
      // A new sign-in works.
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await me(await signIn())).status).toBe(200);
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('exports a project and imports it into another database with every record intact', async () => {
    const everything = async (base: string, key: string, projectId: string, runId: string) => ({
      insights: await call(base, key, 'GET', `/v2/projects/${projectId}/runs/${runId}/insights-settings`),
      traces: await call(base, key, 'POST', `/v2/projects/${projectId}/traces/search`, { log_stream_id: runId }),
      spans: await call(base, key, 'POST', `/v2/projects/${projectId}/spans/search`, { log_stream_id: runId }),
      sessions: await call(base, key, 'POST', `/v2/projects/${projectId}/sessions/search`, { log_stream_id: runId }),
      columns: await call(base, key, 'POST', `/v2/projects/${projectId}/spans/available_columns`, { log_stream_id: runId }),
    });

    const from = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-'));
    const keyA = await setUp(from);
    const a = await serve(from);
    let before: unknown;
    let projectId = '';
    let runId = '';
    try {
      projectId = (await call(a.base, keyA, 'POST', '/v2/projects', { name: 'moving' })).id;
      runId = (await call(a.base, keyA, 'POST', `/v2/projects/${projectId}/log_streams`, { name: 'prod' })).id;
      await call(a.base, keyA, 'PATCH', `/v2/projects/${projectId}/runs/${runId}/insights-settings`, { insights: { logstream: { enabled: true, start_time: '2026-02-03T04:05:06.789Z' } } });
      const session = (await call(a.base, keyA, 'POST', `/v2/projects/${projectId}/sessions`, { log_stream_id: runId, name: 'chat' })).id;
      await call(a.base, keyA, 'POST', `/v2/projects/${projectId}/traces`, {
        log_stream_id: runId,
        session_id: session,
        traces: [{ input: [{ role: 'user', content: 'créé «ici»' }], output: 'ok', tags: ['t'], metrics: { duration_ns: 5 }, spans: [{ type: 'llm', model: 'm', input: 'q', output: { createdAt: 'not a date, user data' } }] }],
      });
      before = await everything(a.base, keyA, projectId, runId);
    } finally {
      a.child.kill('SIGTERM');
    }
    const file = path.join(from, 'export.json');
    expect((await admin(from, 'export-project', '--email', 'owner@example.com', '--project', projectId, '--out', file)).stdout).toBe('exported 1 runs, 3 records\n');

    // JSON Lines: a header with the project, a line per run, then a line per record of that run, and the closing line.
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ format: 'tracelight.project.v3', project: { id: projectId } });
    expect(lines.slice(1).map((l) => Object.keys(l)[0])).toEqual(['run', 'record', 'record', 'record', 'end']);
    expect(lines.at(-1)).toEqual({ end: { runs: 1, records: 3 } });
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    /** Imports `exported` into a new database and checks, through a server on it, that everything is there. */
    const importsWhole = async (exported: string) => {
      const to = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
      const key = await setUp(to);
      expect((await admin(to, 'import-project', '--email', 'owner@example.com', '--in', exported)).stdout).toBe('imported 1 runs, 3 records\n');
      const server = await serve(to);
      try {
        expect(await everything(server.base, key, projectId, runId)).toEqual(before);
      } finally {
        server.child.kill('SIGTERM');
      }
      return to;
    };
    const to = await importsWhole(file);
    await expect(admin(to, 'import-project', '--email', 'owner@example.com', '--in', file)).rejects.toMatchObject({ code: 1 });

    // A file cut short is refused before anything is written: the whole file imports afterwards.
    const cut = path.join(from, 'export-cut.jsonl');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(cut, text.slice(0, text.length - 40));
    const retry = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
    await setUp(retry);
    await expect(admin(retry, 'import-project', '--email', 'owner@example.com', '--in', cut)).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/line 5 is not JSON/) });
    expect((await admin(retry, 'import-project', '--email', 'owner@example.com', '--in', file)).stdout).toBe('imported 1 runs, 3 records\n');

    // A scored record (a multilabel judge's labels, and the scorers' entries on it) is carried as it is.
    const scoredFile = path.join(from, 'export-scored.jsonl');
    const verdict = { status_type: 'success', scorer_type: 'llm', value: ['a', 'b'], explanation: 'two judges', explanations: ['two judges'], cost: null, version: 1 };
    fs.writeFileSync(
      scoredFile,
      `${text
        .trim()
        .split('\n')
        .map((l) => {
          const o = JSON.parse(l);
          if (o.record?.type === 'llm') Object.assign(o.record, { metrics: { ...o.record.metrics, verdict: ['a', 'b'] }, metricInfo: { verdict } });
          return JSON.stringify(o);
        })
        .join('\n')}\n`,
    );
    const scoredTo = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
    const scoredKey = await setUp(scoredTo);
    expect((await admin(scoredTo, 'import-project', '--email', 'owner@example.com', '--in', scoredFile)).stdout).toBe('imported 1 runs, 3 records\n');
    const scoredServer = await serve(scoredTo);
    try {
      const [span] = (await call(scoredServer.base, scoredKey, 'POST', `/v2/projects/${projectId}/spans/search`, { log_stream_id: runId })).records;
      expect([span.metrics.verdict, span.metric_info]).toEqual([['a', 'b'], { verdict }]);
    } finally {
      scoredServer.child.kill('SIGTERM');
    }

    // An import stopped midway (here: what an export of the first lines of the file writes) is completed with
    // --resume, and only then: plain, it is refused with the way out; resumed by another user, it
    // is refused; resumed, everything is there, once.
    const stopped = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
    const stoppedKey = await setUp(stopped);
    const firstPart = path.join(from, 'export-first-part.jsonl');
    fs.writeFileSync(firstPart, `${[...text.trim().split('\n').slice(0, 3), JSON.stringify({ end: { runs: 1, records: 1 } })].join('\n')}\n`);
    expect((await admin(stopped, 'import-project', '--email', 'owner@example.com', '--in', firstPart)).stdout).toBe('imported 1 runs, 1 records\n');
    await expect(admin(stopped, 'import-project', '--email', 'owner@example.com', '--in', file)).rejects.toMatchObject({
      code: 1,
      stderr: `tracelight-admin: project ${projectId} exists already: run the import again with --resume to complete an import of this file that was stopped midway\n`,
    });
    await admin(stopped, 'create-user', '--email', 'mallory@example.com', '--password', 'mallory password');
    // Another user is not offered --resume, which could not help them.
    await expect(admin(stopped, 'import-project', '--email', 'mallory@example.com', '--in', file)).rejects.toMatchObject({
      code: 1,
      stderr: `tracelight-admin: project ${projectId} exists and is not the one this file imports (an import keeps every id)\n`,
    });
    await expect(admin(stopped, 'import-project', '--email', 'mallory@example.com', '--in', file, '--resume')).rejects.toMatchObject({
      code: 1,
      stderr: `tracelight-admin: project ${projectId} exists and is not the one this file imports: not resumed\n`,
    });
    expect((await admin(stopped, 'import-project', '--email', 'owner@example.com', '--resume', '--in', file)).stdout).toBe(
      'imported 1 runs, 3 records, of which 0 runs and 2 records were missing and are written now (what was there is kept as it is)\n',
    );
    const resumed = await serve(stopped);
    try {
      expect(await everything(resumed.base, stoppedKey, projectId, runId)).toEqual(before);
    } finally {
      resumed.child.kill('SIGTERM');
    }

    // A v1 export (one document) made by an earlier version still imports, with the same result.
    const v1 = path.join(from, 'export-v1.json');
    const [head, runLine, ...rest] = lines;
    const recordLines = rest.slice(0, -1);
    const end = rest.at(-1);
    fs.writeFileSync(v1, `${JSON.stringify({ format: 'tracelight.project.v1', project: head.project, runs: [{ run: runLine.run, insights: runLine.insights, records: recordLines.map((l) => l.record) }] })}\n`);
    await importsWhole(v1);

    // A file edited by hand: a wrong type is refused, naming the line and the field, before anything is written.
    const bad = path.join(from, 'export-bad.jsonl');
    fs.writeFileSync(bad, [head, runLine, ...recordLines.slice(0, 2), { record: { ...recordLines[2].record, tags: 'not a list' } }].map((l) => JSON.stringify(l)).join('\n'));
    const clean = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
    await setUp(clean);
    await expect(admin(clean, 'import-project', '--email', 'owner@example.com', '--in', bad)).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/line 5: record\.tags: Input should be a valid list/) });
    expect((await admin(clean, 'import-project', '--email', 'owner@example.com', '--in', file)).stdout).toBe('imported 1 runs, 3 records\n');

    // Ids edited to name another user's project, run and records: what is imported lands in the
    // importer's new project all the same, and nothing of the other user's changes.
    const victimBefore = await (async () => {
      const server = await serve(clean);
      try {
        return await everything(server.base, await keyOf(clean), projectId, runId);
      } finally {
        server.child.kill('SIGTERM');
      }
    })();
    const hostile = path.join(from, 'export-hostile.jsonl');
    const newProject = '0190f7a4-0000-7000-8000-00000000beef';
    const newRun = '0190f7a4-0000-7000-8000-00000000cafe';
    fs.writeFileSync(
      hostile,
      [
        { ...head, project: { ...head.project, id: newProject, name: 'hostile' } },
        { run: { ...runLine.run, id: newRun, name: 'injected' }, insights: { ...runLine.insights, runId, insights: { logstream: { enabled: false, startTime: null } } } },
        ...recordLines.map((l) => ({ record: { ...l.record, name: 'OVERWRITTEN' } })),
        end,
      ].map((l) => JSON.stringify(l)).join('\n'),
    );
    await admin(clean, 'create-user', '--email', 'mallory@example.com', '--password', 'mallory password');
    expect((await admin(clean, 'import-project', '--email', 'mallory@example.com', '--in', hostile)).stdout).toBe('imported 1 runs, 3 records\n');
    const server = await serve(clean);
    try {
      expect(await everything(server.base, await keyOf(clean), projectId, runId)).toEqual(victimBefore);
    } finally {
      server.child.kill('SIGTERM');
    }
  });

  it('refuses an export that is not whole (cut at a line break, lines missing or added), and a v2 one unless told, writing nothing', async () => {
    const from = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-'));
    await setUp(from);
    const { project, lines } = madeUp(3);
    expect((await admin(from, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(from, 'made-up.jsonl', lines))).stdout).toBe('imported 1 runs, 3 records\n');
    const file = path.join(from, 'export.jsonl');
    expect((await admin(from, 'export-project', '--email', 'owner@example.com', '--project', project.id, '--out', file)).stdout).toBe('exported 1 runs, 3 records\n');
    const exported = fs.readFileSync(file, 'utf8').split('\n').slice(0, -1);
    expect(exported.at(-1)).toBe('{"end":{"runs":1,"records":3}}');

    const to = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
    await setUp(to);
    const refused = (name: string, text: ReadonlyArray<string>, stderr: string, ...flags: string[]) => {
      const cut = path.join(from, name);
      fs.writeFileSync(cut, `${text.join('\n')}\n`);
      return expect(admin(to, 'import-project', '--email', 'owner@example.com', '--in', cut, ...flags)).rejects.toMatchObject({ code: 1, stderr: `tracelight-admin: ${stderr}\n` });
    };
    // `head -n 3`, or an export stopped by Ctrl-C after a whole line: it ends cleanly, but without the closing line.
    await refused('head.jsonl', exported.slice(0, 3), 'the file ends at line 3 without the export\'s closing line: it is cut short (an export interrupted, or part of a file), so nothing was imported');
    await refused('no-end.jsonl', exported.slice(0, -1), 'the file ends at line 5 without the export\'s closing line: it is cut short (an export interrupted, or part of a file), so nothing was imported');
    await refused(
      'line-missing.jsonl',
      [...exported.slice(0, 3), ...exported.slice(4)],
      'the export\'s closing line counts 1 runs and 3 records, but the file holds 1 runs and 2 records: it was cut or edited, so nothing was imported',
    );
    await refused('run-together.jsonl', [...exported, ...exported], 'line 7 comes after the export\'s closing line: nothing was imported');
    // A v2 export has no closing line: whether it is whole cannot be known, so it takes the operator's word.
    const v2 = [JSON.stringify({ ...JSON.parse(exported[0]!), format: 'tracelight.project.v2' }), ...exported.slice(1, -1)];
    await refused(
      'v2.jsonl',
      v2,
      'this is a tracelight.project.v2 export, written before exports ended with a closing line: whether it is whole cannot be checked, so nothing was imported. ' +
        'If it is (compare its runs and records with the project it came from), run the import again with --unverified',
    );
    expect((await admin(to, 'import-project', '--email', 'owner@example.com', '--in', path.join(from, 'v2.jsonl'), '--unverified')).stdout).toBe('imported 1 runs, 3 records\n');
    // Nothing of the refused files was written: the whole export imports beside it, as a new database would take it.
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-'));
    await setUp(fresh);
    for (const name of ['head.jsonl', 'line-missing.jsonl', 'run-together.jsonl'])
      await expect(admin(fresh, 'import-project', '--email', 'owner@example.com', '--in', path.join(from, name))).rejects.toMatchObject({ code: 1 });
    expect((await admin(fresh, 'import-project', '--email', 'owner@example.com', '--in', file)).stdout).toBe('imported 1 runs, 3 records\n');
  });

  it('refuses an import whose run ids another project holds, saying so, and leaves no project behind', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-clash-'));
    await setUp(dataDir);
    const { run, lines } = madeUp(2);
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'original.jsonl', lines))).stdout).toBe('imported 1 runs, 2 records\n');
    // A copy under a new project id (and name), its run's id unchanged: the run id is taken, by the original's run.
    const [head, runLine, ...rest] = lines as [{ project: { id: string } }, { run: { id: string } }, ...unknown[]];
    const copyId = randomUUID();
    const copy = (runId: string) => [{ ...head, project: { ...head.project, id: copyId, name: 'copy' } }, { ...runLine, run: { ...runLine.run, id: runId } }, ...rest];
    await expect(admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'copy.jsonl', copy(run.id)))).rejects.toMatchObject({
      code: 1,
      stderr: `tracelight-admin: run ${run.id} is already used by another project in this database (an import keeps every id): nothing was imported\n`,
    });
    await expect(admin(dataDir, 'export-project', '--email', 'owner@example.com', '--project', copyId)).rejects.toMatchObject({ code: 1, stderr: `tracelight-admin: no project ${copyId} of that user\n` });
    // Its name is free, its id too: with a run id of its own, the copy imports.
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'copy-new-run.jsonl', copy(randomUUID())))).stdout).toBe('imported 1 runs, 2 records\n');
    // Two runs of one name in a file would clash partway too: refused before anything is written.
    await expect(
      admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'same-name.jsonl', [{ ...head, project: { ...head.project, id: randomUUID(), name: 'twice' } }, { ...runLine, run: { ...runLine.run, id: randomUUID() } }, { ...runLine, run: { ...runLine.run, id: randomUUID() } }, { end: { runs: 2, records: 0 } }])),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/: the file has two log_stream runs named "prod"\n$/) });
  });

  it('resumes only what is missing: a --resume of an import that was not stopped writes nothing, rolling back no settings or records changed since', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-import-resume-'));
    const key = await setUp(dataDir);
    const { project, run, lines } = madeUp(2);
    const [head, runLine, first, ...rest] = lines as [unknown, { run: unknown }, { record: { name: string } }, ...unknown[]];
    const at = '2026-01-02T03:04:05.000Z';
    const file = jsonLines(dataDir, 'whole.jsonl', [head, { ...runLine, insights: { runId: run.id, insights: { logstream: { enabled: true, startTime: at } }, updatedAt: at } }, first, ...rest]);
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', file)).stdout).toBe('imported 1 runs, 2 records\n');
    // Since the import, its insights are turned off through the API.
    const settings = `/v2/projects/${project.id}/runs/${run.id}/insights-settings`;
    let changed: unknown;
    const server = await serve(dataDir);
    try {
      await call(server.base, key, 'PATCH', settings, { insights: { logstream: { enabled: false } } });
      changed = await call(server.base, key, 'GET', settings);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(changed).toMatchObject({ insights: { logstream: { enabled: false } } });
    // Resumed by mistake, with the file, or one whose record is older: nothing is missing, nothing is written.
    const older = jsonLines(dataDir, 'older.jsonl', [head, runLine, { record: { ...first.record, name: 'older' } }, ...rest]);
    const said: string[] = [];
    for (const again of [file, older]) said.push((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', again, '--resume')).stdout);
    const after = await serve(dataDir);
    try {
      expect(await call(after.base, key, 'GET', settings)).toEqual(changed);
      const traces = await call(after.base, key, 'POST', `/v2/projects/${project.id}/traces/search`, { log_stream_id: run.id });
      expect(traces.records.map((r: { name: string }) => r.name).sort()).toEqual(['t0', 't1']);
    } finally {
      after.child.kill('SIGTERM');
    }
    expect(said).toEqual(Array(2).fill('imported 1 runs, 2 records, of which 0 runs and 0 records were missing and are written now (what was there is kept as it is)\n'));
  });

  it('exports a project the server goes on writing as it was when the export began: each record once, none passed over', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-live-'));
    const key = await setUp(dataDir);
    const server = await serve(dataDir);
    try {
      const projectId = (await call(server.base, key, 'POST', '/v2/projects', { name: 'live' })).id;
      const runId = (await call(server.base, key, 'POST', `/v2/projects/${projectId}/log_streams`, { name: 'prod' })).id;
      const day = 86_400_000;
      const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
      // 8,000 spans in 400 traces, spread over a hundred days: eight pages of the export's 1,000.
      const traces = Array.from({ length: 400 }, (_, t) => ({
        id: randomUUID(),
        created_at: at(t * (day / 4)),
        spans: Array.from({ length: 19 }, (_, j) => ({ id: randomUUID(), type: 'llm', input: 'x'.repeat(300), created_at: at(t * (day / 4) + j) })),
      }));
      for (let b = 0; b < traces.length; b += 50) await call(server.base, key, 'POST', `/v2/projects/${projectId}/traces`, { log_stream_id: runId, traces: traces.slice(b, b + 50) });
      const before = new Set(traces.flatMap((t) => [t.id, ...t.spans.map((s) => s.id)]));

      const out = path.join(dataDir, 'live.jsonl');
      const exporting = promisify(execFile)(process.execPath, [CLI, 'export-project', '--email', 'owner@example.com', '--project', projectId, '--out', out], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir } });
      let exported = false;
      void exporting.finally(() => (exported = true));
      // Meanwhile: spans of the early traces sent again, dated after everything (in created_at order
      // they move from an early page to the last), and new traces dated among the old ones.
      let writes = 0;
      while (!exported) {
        const t = traces[writes % 100]!;
        await call(server.base, key, 'POST', `/v2/projects/${projectId}/traces`, {
          log_stream_id: runId,
          traces: [{ ...t, spans: [{ ...t.spans[0]!, created_at: at(200 * day + writes) }, ...t.spans.slice(1)] }, { created_at: at((writes % 400) * (day / 4) + 1), spans: [{ type: 'tool' }] }],
        });
        writes += 1;
      }
      expect((await exporting).stdout).toMatch(/^exported 1 runs, \d+ records\n$/);
      expect(writes).toBeGreaterThan(0);
      const lines = fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { record?: { id: string }; end?: { records: number } });
      const ids = lines.flatMap((l) => (l.record ? [l.record.id] : []));
      expect(ids.length - new Set(ids).size).toBe(0);
      expect([...before].filter((id) => !ids.includes(id))).toEqual([]);
      expect(lines.at(-1)!.end!.records).toBe(ids.length);
    } finally {
      server.child.kill();
    }
  });

  it('leaves no partial file when the export cannot be written whole, and says why in words', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-full-'));
    const key = await setUp(dataDir);
    const server = await serve(dataDir);
    let projectId = '';
    try {
      projectId = (await call(server.base, key, 'POST', '/v2/projects', { name: 'large' })).id;
      const runId = (await call(server.base, key, 'POST', `/v2/projects/${projectId}/log_streams`, { name: 'prod' })).id;
      await call(server.base, key, 'POST', `/v2/projects/${projectId}/traces`, { log_stream_id: runId, traces: [{ input: 'x'.repeat(200_000), output: 'o' }] });
    } finally {
      server.child.kill();
    }
    // No mount in CI: a file-size limit makes the writes past 32 KiB fail (EFBIG) as a full disk does (ENOSPC).
    const out = path.join(dataDir, 'large.jsonl');
    const cli = `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" "${CLI}" export-project --email owner@example.com --project ${projectId} --out "${out}"`;
    const failed = await promisify(execFile)('sh', ['-c', cli], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir } }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect([failed?.code, failed?.stderr]).toEqual([
      1,
      `tracelight-admin: ${out} grew past the largest file this process may write (EFBIG): the export was not written, and no partial file was left\n`,
    ]);
    expect(fs.existsSync(out)).toBe(false);
    expect(fs.readdirSync(dataDir).filter((name) => name.includes('large.jsonl'))).toEqual([]);
  });

  it('leaves neither the file nor a temporary one when the export is stopped by Ctrl-C or SIGTERM, removes one left by a kill at the next export, and writes the file whole or not at all', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-stopped-'));
    await setUp(dataDir);
    // About 40 MB to write: long enough to be stopped midway.
    const { project, lines } = madeUp(1000, 40_000, 'metadata');
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'made-up.jsonl', lines))).stdout).toBe('imported 1 runs, 1000 records\n');
    fs.rmSync(path.join(dataDir, 'made-up.jsonl'));
    const before = fs.readdirSync(dataDir).sort();
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-out-'));
    const out = path.join(outDir, 'export.jsonl');
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const child = spawn(process.execPath, [CLI, 'export-project', '--email', 'owner@example.com', '--project', project.id, '--out', out], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir } });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      // Stopped as soon as it has begun writing, as an operator's Ctrl-C would.
      const watcher = fs.watch(outDir, () => child.kill(signal));
      const [exitCode] = (await once(child, 'exit')) as [number | null];
      watcher.close();
      expect([exitCode, stderr]).toEqual([code, `tracelight-admin: stopped by ${signal}: the export was not written, and no partial file was left\n`]);
      expect(fs.readdirSync(outDir)).toEqual([]);
    }
    // Killed outright, it cannot clean up: its temporary file stays, until the next export to that file
    // finds its process gone. The temporary file of an export still running (here, this test's own
    // process stands for one) is left alone.
    const killed = spawn(process.execPath, [CLI, 'export-project', '--email', 'owner@example.com', '--project', project.id, '--out', out], { env: { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir } });
    const watcher = fs.watch(outDir, () => killed.kill('SIGKILL'));
    await once(killed, 'exit');
    watcher.close();
    const abandoned = String(fs.readdirSync(outDir)[0]);
    expect(abandoned).toMatch(new RegExp(`^\\.export\\.jsonl\\.[A-Za-z0-9_-]+\\.\\d+\\.${killed.pid}\\.[0-9a-f]{8}\\.partial$`));
    const unlikeIn = (name: string) => name.slice(0, -'12345678.partial'.length); // its random part left out
    expect(unlikeIn(path.join(outDir, abandoned))).toBe(unlikeIn(partialName(out, undefined, killed.pid)));
    const running = partialName(out);
    fs.writeFileSync(running, '');
    // One of the same pid, whose process is gone, but written on another host (or in another pid
    // namespace): whether it still runs cannot be told from here, so it is left, and named.
    const elsewhere = partialName(out, 'another-host.4026531836', Number(killed.pid));
    fs.writeFileSync(elsewhere, '');

    // Whole, it is there under its name and nothing else is; the data dir is as it was.
    const whole = await admin(dataDir, 'export-project', '--email', 'owner@example.com', '--project', project.id, '--out', out);
    expect(whole.stdout).toBe('exported 1 runs, 1000 records\n');
    expect(whole.stderr.split('\n').sort()).toEqual(
      [
        '',
        `tracelight-admin: removed ${path.join(outDir, abandoned)}, the unfinished export of a process (${killed.pid}) that is no longer running`,
        `tracelight-admin: left ${elsewhere} as it is: the unfinished export of a process (${killed.pid}) on another host or in another container, which this one cannot see; remove it once no export to ${out} is running there`,
      ].sort(),
    );
    fs.rmSync(running);
    fs.rmSync(elsewhere);
    expect(fs.readdirSync(outDir)).toEqual(['export.jsonl']);
    expect(fs.readFileSync(out, 'utf8').endsWith('{"end":{"runs":1,"records":1000}}\n')).toBe(true);
    expect(fs.readdirSync(dataDir).sort()).toEqual(before);
  });

  it('backs up a live database: the copy is private, refuses to overwrite, and serves what was written, with the key', async () => {
    const live = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-backup-'));
    const key = await setUp(live);
    const server = await serve(live);
    const file = path.join(live, 'backup.db');
    let projectId = '';
    let runId = '';
    let written = 0;
    try {
      projectId = (await call(server.base, key, 'POST', '/v2/projects', { name: 'kept' })).id;
      runId = (await call(server.base, key, 'POST', `/v2/projects/${projectId}/log_streams`, { name: 'prod' })).id;
      const ingest = () => call(server.base, key, 'POST', `/v2/projects/${projectId}/traces`, { log_stream_id: runId, traces: [{ name: `t${written++}`, input: 'q', output: 'a' }] });
      for (let i = 0; i < 20; i++) await ingest();
      // The server goes on writing while the copy is taken.
      let writing = true;
      const writer = (async () => {
        while (writing) await ingest();
      })();
      const out = (await admin(live, 'backup', '--out', file)).stdout;
      writing = false;
      await writer;
      expect(out).toMatch(/^backed up to .*backup\.db \(\d+ bytes\); keep the secret key/);
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // Whole: it opens and passes SQLite's own check, and nothing was left beside it.
    const copy = new SqliteDatabase({ path: file, readonly: true });
    try {
      expect(copy.db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    } finally {
      copy.close();
    }
    expect(fs.readdirSync(live).filter((name) => name.includes('backup.db'))).toEqual(['backup.db']);
    await expect(admin(live, 'backup', '--out', file)).rejects.toMatchObject({ code: 1, stderr: `tracelight-admin: ${file} exists already (EEXIST): a backup is never written over a file\n` });

    // Restored: the copy as the database of a new data dir, with the same secret key.
    const restored = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-restore-'));
    fs.copyFileSync(file, path.join(restored, 'tracelight.db'));
    fs.copyFileSync(path.join(live, 'secret.key'), path.join(restored, 'secret.key'));
    const again = await serve(restored);
    try {
      const found = await call(again.base, key, 'POST', `/v2/projects/${projectId}/traces/search`, { log_stream_id: runId, limit: 1000 });
      const names = new Set(found.records.map((r: { name: string }) => r.name));
      for (let i = 0; i < 20; i++) expect(names.has(`t${i}`)).toBe(true);
      expect(names.size).toBeLessThanOrEqual(written);
    } finally {
      again.child.kill('SIGTERM');
    }
  });

  it('leaves neither the backup nor a temporary file when it fails or is stopped midway by Ctrl-C or SIGTERM, removes those of one killed outright at the next backup, and writes the copy whole', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-backup-stopped-'));
    await setUp(dataDir);
    // About 40 MB of text, twice that to copy: long enough to be stopped midway.
    const { lines } = madeUp(1000, 40_000, 'metadata');
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'made-up.jsonl', lines))).stdout).toBe('imported 1 runs, 1000 records\n');
    fs.rmSync(path.join(dataDir, 'made-up.jsonl'));
    const before = fs.readdirSync(dataDir).sort();
    const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-backup-out-'));
    const out = path.join(outDir, 'backup.db');
    const env = { PATH: process.env['PATH'] ?? '', TRACELIGHT_DATA_DIR: dataDir };

    // No mount in CI: a file-size limit makes the copy's writes past 32 KiB fail (EFBIG) as a full disk does (ENOSPC).
    const cli = `trap '' XFSZ; ulimit -f 64; exec "${process.execPath}" "${CLI}" backup --out "${out}"`;
    const failed = await promisify(execFile)('sh', ['-c', cli], { env }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect([failed?.code, failed?.stderr]).toEqual([
      1,
      `tracelight-admin: ${out} grew past the largest file this process may write (EFBIG): the backup was not written, and no partial file was left\n`,
    ]);
    expect(fs.readdirSync(outDir)).toEqual([]);

    /** A backup, sent `signal` as soon as its copy is being written (its temporary file holds part of it): how it ended. */
    const stoppedMidway = async (signal: NodeJS.Signals) => {
      const child = spawn(process.execPath, [CLI, 'backup', '--out', out], { env });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      let written = 0;
      const watcher = fs.watch(outDir, () => {
        if (written > 0) return;
        try {
          const partial = fs.readdirSync(outDir).find((name) => new RegExp(`\\.${child.pid}\\.[0-9a-f]{8}\\.partial$`).test(name));
          if (partial === undefined) return;
          written = fs.statSync(path.join(outDir, partial)).size;
        } catch {
          return; // not made yet, or already removed
        }
        if (written > 0) child.kill(signal);
      });
      const [code, killedBy] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
      watcher.close();
      return { pid: child.pid, code, killedBy, stderr, written };
    };
    const stopsAt: number[] = [];
    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const stopped = await stoppedMidway(signal);
      stopsAt.push(stopped.written);
      expect([stopped.code, stopped.stderr]).toEqual([code, `tracelight-admin: stopped by ${signal}: the backup was not written, and no partial file was left\n`]);
      expect(fs.readdirSync(outDir)).toEqual([]);
    }

    // Killed outright, it cannot clean up: its temporary file stays, with SQLite's journal of the copy,
    // until the next backup to that file finds its process gone. The temporary file of a backup still
    // running (here, this test's own process stands for one) is left alone.
    const killed = await stoppedMidway('SIGKILL');
    stopsAt.push(killed.written);
    expect(killed.killedBy).toBe('SIGKILL');
    const abandoned = String(fs.readdirSync(outDir).sort()[0]);
    expect(abandoned).toMatch(new RegExp(`^\\.backup\\.db\\.[A-Za-z0-9_-]+\\.\\d+\\.${killed.pid}\\.[0-9a-f]{8}\\.partial$`));
    expect(fs.readdirSync(outDir).sort()).toEqual([abandoned, `${abandoned}-journal`]);
    const running = partialName(out);
    fs.writeFileSync(running, '');

    const whole = await admin(dataDir, 'backup', '--out', out);
    expect(whole.stdout).toBe(
      `backed up to ${out} (${fs.statSync(out).size} bytes); keep the secret key (secret.key in the data dir, or TRACELIGHT_SECRET_KEY) safe apart from it: without the key the copy's API keys, tokens and gateway secrets cannot be used\n`,
    );
    expect(whole.stderr).toBe(
      [abandoned, `${abandoned}-journal`]
        .map((name) => `tracelight-admin: removed ${path.join(outDir, name)}, the unfinished backup of a process (${killed.pid}) that is no longer running\n`)
        .join(''),
    );
    expect(fs.existsSync(running)).toBe(true);
    fs.rmSync(running);
    expect(fs.readdirSync(outDir)).toEqual(['backup.db']);
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);
    // Each stop landed while the copy was being written (before its rename, as the files left above show):
    // the temporary file held some of what the whole copy holds, all of it at most (on a loaded machine
    // the watcher may first see it once its last page is written, before the copy is made durable).
    for (const at of stopsAt) expect([at > 0, at <= fs.statSync(out).size]).toEqual([true, true]);
    const copy = new SqliteDatabase({ path: out, readonly: true });
    try {
      expect(copy.db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      expect(copy.db.prepare('SELECT count(*) AS n FROM log_records').get()).toEqual({ n: 1000 });
    } finally {
      copy.close();
    }
    expect(fs.readdirSync(dataDir).sort()).toEqual(before);
  });

  it('keeps to the server’s TRACELIGHT_SQLITE_MAX_BYTES: an import that does not fit stops, says so, and is resumed once there is room', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-quota-'));
    await setUp(dataDir);
    // An export of 40 records of 10 KB each: about 400 KB to store, where the quota leaves room for about 100 KB beyond the schema.
    const { project, lines } = madeUp(40, 10_000);
    const file = path.join(dataDir, 'large.jsonl');
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));

    const quota = 256 * 1024;
    await expect(adminWith({ TRACELIGHT_SQLITE_MAX_BYTES: '256kb' }, dataDir, 'import-project', '--email', 'owner@example.com', '--in', file)).rejects.toMatchObject({
      code: 1,
      stderr:
        'tracelight-admin: no room left in the database for this import (SQLITE_FULL: database or disk is full): it stopped after 1 runs and 0 records, which are kept. ' +
        'Free space (on SQLite: on its disk, or raise TRACELIGHT_SQLITE_MAX_BYTES), then run the import again with --resume to complete it\n',
    });
    // The records were refused whole, and the file kept to its quota.
    expect(fs.statSync(path.join(dataDir, 'tracelight.db')).size).toBeLessThanOrEqual(quota);

    // With room, the import is completed, every record once.
    const roomy = { TRACELIGHT_SQLITE_MAX_BYTES: '64mb' };
    expect((await adminWith(roomy, dataDir, 'import-project', '--email', 'owner@example.com', '--in', file, '--resume')).stdout).toBe(
      'imported 1 runs, 40 records, of which 0 runs and 40 records were missing and are written now (what was there is kept as it is)\n',
    );
    expect((await adminWith(roomy, dataDir, 'export-project', '--email', 'owner@example.com', '--project', project.id, '--out', path.join(dataDir, 'again.jsonl'))).stdout).toBe('exported 1 runs, 40 records\n');
  });

  it('refuses a line that is JSON but not an object as it refuses other malformed lines, naming the line', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    await setUp(dataDir);
    const [head, run, ...records] = madeUp(2).lines;
    const refused = (name: string, lines: ReadonlyArray<unknown>, stderr: string) =>
      expect(admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, name, lines))).rejects.toMatchObject({ code: 1, stderr: `tracelight-admin: ${stderr}\n` });
    await refused('null-header.jsonl', [null, run, ...records], 'line 1 is not an object but null');
    await refused('null-line.jsonl', [head, run, null, ...records], 'line 3 is not an object but null');
    await refused('string-line.jsonl', [head, 'run', ...records], 'line 2 is not an object but a string');
    await refused('list-line.jsonl', [head, run, [records[0]]], 'line 3 is not an object but a list');
    // Nothing was imported: the whole file imports afterwards.
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'whole.jsonl', [head, run, ...records]))).stdout).toBe('imported 1 runs, 2 records\n');
  });

  it('refuses a record whose text stored as text holds half of a surrogate pair, as the API does, naming the line and the field; takes it in input and metadata', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    await setUp(dataDir);
    const { lines } = madeUp(1);
    const [head, run, line, end] = lines as [unknown, unknown, { record: Record<string, unknown> }, unknown];
    const cut = 'cut \ud83d in half';
    const refusedAt = async (name: string, over: Record<string, unknown>, field: RegExp) =>
      expect(admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, name, [head, run, { record: { ...line.record, ...over } }, end]))).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringMatching(field),
      });
    await refusedAt('name.jsonl', { name: cut }, /line 3: record\.name: Input should be a valid string, unable to parse raw data as a unicode string/);
    await refusedAt('tags.jsonl', { tags: ['ok', cut] }, /line 3: record\.tags\.1: .*surrogate pair/);
    await refusedAt('metric.jsonl', { metrics: { [cut]: 1 } }, /line 3: record\.metrics\.cut . in half\.\[key\]: .*surrogate pair/);
    await refusedAt('model.jsonl', { attributes: { model: cut } }, /line 3: record\.attributes\.model: .*surrogate pair/);
    // Nothing was imported; kept as JSON text, an input and metadata take such a string, and come back as sent.
    const kept = { ...line.record, input: { note: cut }, userMetadata: { [cut]: cut } };
    expect((await admin(dataDir, 'import-project', '--email', 'owner@example.com', '--in', jsonLines(dataDir, 'whole.jsonl', [head, run, { record: kept }, end]))).stdout).toBe('imported 1 runs, 1 records\n');
  });

  it('refuses a data dir with no database but for create-user’s first set-up, and says which migrations migrate applied', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    const database = path.join(empty, 'tracelight.db');
    const noDatabase = (file: string) =>
      `tracelight-admin: no database at ${file}: check TRACELIGHT_DATA_DIR (or TRACELIGHT_DATABASE_URL). Only create-user makes a new database (a first set-up), as the server does on its first start\n`;
    const email = ['--email', 'owner@example.com'];
    for (const args of [
      ['migrate'],
      ['create-api-key', ...email, '--description', 'd'],
      ['list-api-keys', ...email],
      ['revoke-api-key', ...email, '--id', randomUUID()],
      ['revoke-sessions', ...email],
      ['export-project', ...email, '--project', randomUUID(), '--out', path.join(empty, 'export.jsonl')],
      ['import-project', ...email, '--in', path.join(empty, 'export.jsonl')],
      ['delete-project', ...email, '--project', randomUUID()],
      ['backup', '--out', path.join(empty, 'backup.db')],
      ['reseal-secrets'],
    ])
      await expect(admin(empty, ...args)).rejects.toMatchObject({ code: 2, stderr: noDatabase(database) });
    // Nothing was made there: no database, no secret key; nor a data dir that is not there at all.
    expect(fs.readdirSync(empty)).toEqual([]);
    const mistyped = path.join(empty, 'tracelihgt');
    await expect(admin(mistyped, 'migrate')).rejects.toMatchObject({ code: 2, stderr: noDatabase(path.join(mistyped, 'tracelight.db')) });
    expect(fs.readdirSync(empty)).toEqual([]);

    // A first set-up refused for what it was given makes nothing either.
    for (const [args, reason] of [
      [['--email', 'owner@example', '--password', 'owner password!'], 'value is not a valid email address'],
      [[...email, '--password', 'short'], 'password must have at least 8 characters'],
      [[...email, '--password', 'owner password!', '--role', 'root'], '--role must be one of admin, manager, user, read_only'],
    ] as const)
      await expect(admin(empty, 'create-user', ...args)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(reason) });
    expect(fs.readdirSync(empty)).toEqual([]);

    // The first set-up makes it, and says so apart from the user it prints.
    const made = await admin(empty, 'create-user', ...email, '--password', 'owner password!');
    expect(made.stderr).toBe(`tracelight-admin: there was no database at ${database}: a new one was made\n`);
    expect(JSON.parse(made.stdout)).toMatchObject({ email: 'owner@example.com' });
    const newest = Math.max(...MIGRATIONS.map((m) => m.version));
    expect((await admin(empty, 'migrate')).stdout).toBe(`no migration needed: schema up to date at version ${newest} (1 users)\n`);

    // A database of an earlier version: migrate says what it applied, by version and name.
    const earlier = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    new SqliteDatabase({ path: path.join(earlier, 'tracelight.db') }, MIGRATIONS.slice(0, 3)).close();
    const pending = [...MIGRATIONS].sort((a, b) => a.version - b.version).slice(3);
    expect(pending.length).toBeGreaterThan(0);
    expect((await admin(earlier, 'migrate')).stdout).toBe(`${pending.map((m) => `applied migration ${m.version}: ${m.name}\n`).join('')}schema up to date at version ${newest} (0 users)\n`);
    expect((await admin(earlier, 'migrate')).stdout).toBe(`no migration needed: schema up to date at version ${newest} (0 users)\n`);

    // A database whose key is elsewhere (the servers' TRACELIGHT_SECRET_KEY, not given here): the commands
    // that mint or seal with it are refused, and no key of the CLI's own is made; the others need none.
    expect(fs.readdirSync(earlier).filter((f) => f.startsWith('secret'))).toEqual([]);
    for (const args of [['create-api-key', ...email, '--description', 'd'], ['reseal-secrets']])
      await expect(admin(earlier, ...args)).rejects.toMatchObject({
        code: 2,
        stderr: `tracelight-admin: no secret key: neither TRACELIGHT_SECRET_KEY nor ${path.join(earlier, 'secret.key')}. ${args[0]} uses the servers' key: run it with their TRACELIGHT_SECRET_KEY, or their data dir (TRACELIGHT_DATA_DIR, where secret.key is)\n`,
      });
    expect(fs.readdirSync(earlier).filter((f) => f.startsWith('secret'))).toEqual([]);
    const given = randomBytes(32);
    expect((await adminWith({ TRACELIGHT_SECRET_KEY: given.toString('hex') }, earlier, 'reseal-secrets')).stdout).toBe(`sealed 0 secrets anew under the current key; 0 already were (keys: secret_key_id ${keyId(given)})\n`);
    // The key being replaced given as the one in use too: a rotation mis-set, refused before anything is sealed.
    const same = randomBytes(32).toString('hex');
    await expect(adminWith({ TRACELIGHT_SECRET_KEY: same, TRACELIGHT_PREVIOUS_SECRET_KEY: same }, earlier, 'reseal-secrets')).rejects.toMatchObject({
      code: 2,
      stderr: 'tracelight-admin: TRACELIGHT_PREVIOUS_SECRET_KEY is the key in use: give the key being replaced there, and the new one as TRACELIGHT_SECRET_KEY (or in secret.key)\n',
    });
    // create-user makes a key only with the database it makes: here the servers' key may be elsewhere.
    await admin(earlier, 'create-user', '--email', 'late@example.com', '--password', 'owner password!');
    expect(fs.readdirSync(earlier).filter((f) => f.startsWith('secret'))).toEqual([]);
  });

  it('refuses a storage setting the server would refuse, in one sentence, before opening anything', async () => {
    const untouched = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    await expect(adminWith({ TRACELIGHT_SQLITE_MAX_BYTES: '12' }, untouched, 'migrate')).rejects.toMatchObject({
      code: 2,
      stderr: 'tracelight-admin: fix the configuration: TRACELIGHT_SQLITE_MAX_BYTES must be a size of at least 64kb, like 512mb or 20gb, got "12"\n',
    });
    // Before, a database URL of no known engine was taken for the SQLite file in the data dir.
    // Every problem at once, and never a secret (the URL's password, the key).
    await expect(adminWith({ TRACELIGHT_DATABASE_URL: 'postgres://u:Pa55word@db/tl', TRACELIGHT_SQLITE_SYNCHRONOUS: 'OFF', TRACELIGHT_SECRET_KEY: 'Sh0rtSecret', TRACELIGHT_PASSWORD_COST: '12' }, untouched, 'migrate')).rejects.toMatchObject({
      code: 2,
      stderr:
        'tracelight-admin: fix the configuration: TRACELIGHT_DATABASE_URL must start with sqlite:, mongodb:// or mongodb+srv://, got one starting "postgres:"; ' +
        'TRACELIGHT_SQLITE_SYNCHRONOUS must be FULL or NORMAL, got "OFF"; ' +
        'TRACELIGHT_SECRET_KEY must be at least 32 bytes (64 hex or 43 base64 characters, or a 32+ character passphrase); ' +
        'TRACELIGHT_PASSWORD_COST must be an integer from 14 to 18, got "12"\n',
    });
    expect(fs.readdirSync(untouched)).toEqual([]);
  });

  it('deletes a project with everything under it, for its owner only, asking nothing; the running server stops serving it', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    const key = await setUp(dataDir);
    await admin(dataDir, 'create-user', '--email', 'other@example.com', '--password', 'other password!');
    // The server remembers a project and its runs once read for TRACELIGHT_CREDENTIAL_CACHE_MS: one
    // deleted by another process (this CLI) is still read there for at most that long.
    const cacheMs = 300;
    const server = await serve(dataDir, { TRACELIGHT_CREDENTIAL_CACHE_MS: String(cacheMs) });
    try {
      const base = server.base;
      const status = async (method: string, p: string, json?: unknown) =>
        (await fetch(base + p, { method, headers: { 'Service-API-Key': key, 'content-type': 'application/json' }, ...(json ? { body: JSON.stringify(json) } : {}) })).status;
      const project = await call(base, key, 'POST', '/v2/projects', { name: 'to be deleted' });
      const stream = await call(base, key, 'POST', `/v2/projects/${project.id}/log_streams`, { name: 'prod' });
      await call(base, key, 'POST', `/v2/projects/${project.id}/traces`, { log_stream_id: stream.id, traces: [{ input: 'q', output: 'a', spans: [{ type: 'llm', input: 'q' }] }, { input: 'q2', spans: [] }] });
      await call(base, key, 'PATCH', `/v2/projects/${project.id}/runs/${stream.id}/insights-settings`, { insights: { logstream: { enabled: true } } });
      // Read, so the server remembers the project and its log stream.
      expect((await call(base, key, 'POST', `/v2/projects/${project.id}/traces/search`, { log_stream_id: stream.id })).records).toHaveLength(2);

      await expect(admin(dataDir, 'delete-project', '--email', 'other@example.com', '--project', project.id)).rejects.toMatchObject({
        code: 1,
        stderr: `tracelight-admin: no project ${project.id}\n`,
      });
      expect(await status('GET', `/v2/projects/${project.id}`)).toBe(200);

      expect((await admin(dataDir, 'delete-project', '--email', 'owner@example.com', '--project', project.id)).stdout).toBe(
        `deleted project ${project.id} "to be deleted": 1 runs, 3 records, with their settings\n`,
      );
      // Writes under it are refused at once, whatever the server remembers.
      expect(await status('POST', `/v2/projects/${project.id}/traces`, { log_stream_id: stream.id, traces: [{ input: 'late' }] })).toBe(404);
      expect(await status('PATCH', `/v2/projects/${project.id}/runs/${stream.id}/insights-settings`, {})).toBe(404);
      expect(await status('POST', `/v2/projects/${project.id}/log_streams`, { name: 'late' })).toBe(404);
      await new Promise((r) => setTimeout(r, cacheMs + 50));
      expect(await status('GET', `/v2/projects/${project.id}`)).toBe(404);
      expect(await status('POST', `/v2/projects/${project.id}/traces/search`, { log_stream_id: stream.id })).toBe(404);
      expect(await call(base, key, 'GET', '/v2/projects')).toEqual([]);
      await expect(admin(dataDir, 'delete-project', '--email', 'owner@example.com', '--project', project.id)).rejects.toMatchObject({ code: 1, stderr: `tracelight-admin: no project ${project.id}\n` });
      // The name is free again.
      expect((await call(base, key, 'POST', '/v2/projects', { name: 'to be deleted' })).id).not.toBe(project.id);
    } finally {
      server.child.kill('SIGTERM');
    }
    await expect(admin(dataDir, 'delete-project', '--email', 'owner@example.com')).rejects.toMatchObject({ code: 2, stderr: 'tracelight-admin: --project is required\n' });
  });

  it('seals every gateway token anew under a new secret key, so that the old one can be dropped, keeping what it cannot open and naming its owner', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    const [OLD, NEW, ELSEWHERE] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const before = { TRACELIGHT_SECRET_KEY: OLD.toString('hex') };
    const password = 'owner password!';
    const ids: Record<string, UserId> = {};
    for (const email of ['owner@example.com', 'second@example.com', 'lost@example.com'])
      ids[email] = JSON.parse((await adminWith(before, dataDir, 'create-user', '--email', email, '--password', password)).stdout).id;
    // Two users set their gateway token on a server under the old key.
    const server = await serve(dataDir, before);
    try {
      for (const email of ['owner@example.com', 'second@example.com']) {
        const res = await fetch(`${server.base}/v2/integrations/gateway`, {
          method: 'PUT',
          headers: { authorization: `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`, 'content-type': 'application/json' },
          body: JSON.stringify({ token: `token of ${email}`, endpoint: 'https://gateway.example.com/relay', use_case: 'SUPPORT' }),
        });
        expect([email, res.status]).toEqual([email, 200]);
      }
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }
    // A third's was sealed under a key given to neither (a key lost before): written straight into the database.
    const file = path.join(dataDir, 'tracelight.db');
    const sealerOf = (secretKey: Buffer) => new AesGcmSecretSealer({ secretKey, tokenTtlSeconds: 60, refreshTokenTtlSeconds: 60, passwordCacheTtlSeconds: 0 });
    const lostOwner = asId<UserId>(ids['lost@example.com']!);
    const direct = new SqliteDatabase({ path: file });
    const lost = await right(
      sqliteRepositories(direct).integrations.upsert(anIntegration(lostOwner, { sealedSecret: sealerOf(ELSEWHERE).seal('token of lost', `integration/gateway/${lostOwner}`) })),
    );
    direct.close();
    const stored = () => {
      const db = new SqliteDatabase({ path: file, readonly: true });
      try {
        return db.db.prepare('SELECT id, created_by, sealed_secret, updated_at FROM integrations ORDER BY id').all() as Array<{ id: string; created_by: string; sealed_secret: string; updated_at: number }>;
      } finally {
        db.close();
      }
    };
    const was = stored();
    expect(was).toHaveLength(3);

    const rotation = { TRACELIGHT_SECRET_KEY: NEW.toString('hex'), TRACELIGHT_PREVIOUS_SECRET_KEY: OLD.toString('hex') };
    // The keys' ids, as each server's start line gives them.
    const bothIds = `secret_key_id ${keyId(NEW)}, previous_secret_key_id ${keyId(OLD)}`;
    const lostLine = `tracelight-admin: 1 secret opens under neither key: their owners must set them again (PUT the integration):\n  lost@example.com: gateway integration ${lost.id}\n`;
    await expect(adminWith(rotation, dataDir, 'reseal-secrets')).rejects.toMatchObject({
      code: 1,
      stdout: `sealed 2 secrets anew under the current key; 0 already were (keys: ${bothIds})\n`,
      stderr: lostLine,
    });
    const now = stored();
    const onlyNew = sealerOf(NEW);
    for (const row of now) {
      const earlier = was.find((w) => w.id === row.id)!;
      // Nothing the owners set changed, nor when they set it.
      expect(row.updated_at).toBe(earlier.updated_at);
      const email = Object.keys(ids).find((e) => ids[e] === row.created_by)!;
      const context = `integration/gateway/${row.created_by}`;
      if (email === 'lost@example.com') {
        expect(row.sealed_secret).toBe(earlier.sealed_secret);
        continue;
      }
      expect(row.sealed_secret).not.toBe(earlier.sealed_secret);
      // Opens under the new key alone, as a process without the old key will open it; the old key no longer does.
      expect(onlyNew.open(row.sealed_secret, context)).toEqual({ _tag: 'Right', right: `token of ${email}` });
      expect(sealerOf(OLD).open(row.sealed_secret, context)._tag).toBe('Left');
    }
    // Run again, or with the old key dropped: nothing left to seal anew.
    await expect(adminWith(rotation, dataDir, 'reseal-secrets')).rejects.toMatchObject({ code: 1, stdout: `sealed 0 secrets anew under the current key; 2 already were (keys: ${bothIds})\n`, stderr: lostLine });
    await expect(adminWith({ TRACELIGHT_SECRET_KEY: NEW.toString('hex') }, dataDir, 'reseal-secrets')).rejects.toMatchObject({
      code: 1,
      stdout: `sealed 0 secrets anew under the current key; 2 already were (keys: secret_key_id ${keyId(NEW)})\n`,
      stderr: lostLine.replace('under neither key:', 'under neither key (TRACELIGHT_PREVIOUS_SECRET_KEY is not set):'),
    });
    expect(stored()).toEqual(now);
  });

  it('reports bad input clearly and exits non-zero', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    // What is wrong with the command line exits 2, naming the flag; what fails while acting exits 1.
    await expect(admin(dataDir, 'create-user', '--email', 'not-an-email', '--password', 'long enough')).rejects.toMatchObject({
      code: 2,
      stderr: 'tracelight-admin: --email: value is not a valid email address\n',
    });
    await admin(dataDir, 'create-user', '--email', 'somebody@example.com', '--password', 'long enough');
    await expect(admin(dataDir, 'create-api-key', '--email', 'nobody@example.com', '--description', 'x')).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/no user/) });
    // A password no sign-in would take (over 1,024 characters) makes no user: it could never sign in at /login.
    await expect(admin(dataDir, 'create-user', '--email', 'long@example.com', '--password', 'p'.repeat(1025))).rejects.toMatchObject({
      code: 2,
      stderr: 'tracelight-admin: --password: password must have at most 1024 characters\n',
    });
    // An API key's description and expiry are checked by the API's own codec: nothing it would refuse.
    const keyOf = (...args: string[]) => admin(dataDir, 'create-api-key', '--email', 'somebody@example.com', ...args);
    for (const [args, stderr] of [
      [['--description', 'd', '--expires-at', '2030-01-01T00:00:00'], '--expires-at: Input should have timezone info'],
      [['--description', 'd', '--expires-at', 'next year'], '--expires-at: Input should be a valid datetime'],
      [['--description', 'd'.repeat(1025)], '--description: String should have at most 1024 characters'],
      [['--description', 'd', '--description', 'e'], '--description is given twice'],
    ] as const)
      await expect(keyOf(...args)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining(stderr) });
    const expiring = JSON.parse((await keyOf('--description', 'd', '--expires-at', '2030-01-01T09:00:00+09:00')).stdout) as { id: string };
    const listed = (await admin(dataDir, 'list-api-keys', '--email', 'somebody@example.com')).stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; expires_at: string });
    expect(listed).toEqual([expect.objectContaining({ id: expiring.id, expires_at: '2030-01-01T00:00:00.000Z' })]);
    await expect(admin(dataDir, 'frobnicate')).rejects.toMatchObject({ code: 2 });
    // An unknown command or flag is refused before the database is opened: nothing is created.
    const untouched = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-cli-'));
    await expect(admin(untouched, 'constructor')).rejects.toMatchObject({ code: 2 });
    await expect(admin(untouched, 'create-user', '--email', 'a@example.com', '--password', 'long enough', '--rol', 'admin')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/create-user takes --email, --password, --role; not --rol/),
    });
    expect(fs.readdirSync(untouched)).toEqual([]);
    // Errors in words, and an export never over a file that exists.
    await admin(dataDir, 'create-user', '--email', 'someone@example.com', '--password', 'long enough');
    await expect(admin(dataDir, 'revoke-api-key', '--email', 'someone@example.com', '--id', '0190f7a4-0000-7000-8000-000000000001')).rejects.toMatchObject({
      stderr: 'tracelight-admin: no API key 0190f7a4-0000-7000-8000-000000000001\n',
    });
    const precious = path.join(dataDir, 'precious.txt');
    fs.writeFileSync(precious, 'precious');
    await expect(admin(dataDir, 'export-project', '--email', 'someone@example.com', '--project', 'p', '--out', precious)).rejects.toMatchObject({ stderr: expect.stringMatching(/EEXIST/) });
    expect(fs.readFileSync(precious, 'utf8')).toBe('precious');
    await expect(admin(dataDir, 'export-project', '--email', 'someone@example.com', '--project', 'p', '--out', path.join(dataDir, 'none.jsonl'))).rejects.toMatchObject({ code: 1 });
    expect(fs.existsSync(path.join(dataDir, 'none.jsonl'))).toBe(false);
    const nowhere = path.join(dataDir, 'not-there', 'export.jsonl');
    await expect(admin(dataDir, 'export-project', '--email', 'someone@example.com', '--project', 'p', '--out', nowhere)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(new RegExp(`^tracelight-admin: cannot write the export to ${nowhere}: ENOENT`)),
    });
  });
});

describe('exportProject without a snapshot (MongoDB)', () => {
  it('stops with ExportRaced when a record comes twice, the sign that a write moved a record past the page read', async () => {
    const db = new SqliteDatabase({ path: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-export-raced-')), 'tracelight.db') });
    const repos = sqliteRepositories(db);
    const owner = await right(repos.users.insert(aUser()));
    const project = await right(repos.projects.insert(aProject(owner.id)));
    const run = await right(repos.runs.insert(aRun(project)));
    const early = new Date('2020-01-01T00:00:00Z');
    const spans = Array.from({ length: 1_500 }, (_, i) => aRecord(run, { type: 'llm', createdAt: new Date(early.getTime() + 1_000 + i) }));
    await right(repos.logRecords.ingest(run.id, spans, []));
    let lines = 0;
    let during: () => Promise<void> = async () => {};
    const write = async () => {
      if (++lines === 500) await during();
    };
    // Spans dated before all the others, landing between two pages: each page starts after the last
    // record read, not at a count of records, so none comes twice (nor is any passed over).
    during = async () => right(repos.logRecords.ingest(run.id, Array.from({ length: 10 }, () => aRecord(run, { type: 'llm', createdAt: early })), []));
    expect(await exportProject(repos, owner.id, project.id, write, { checkRepeats: true })).toEqual({ runs: 1, records: 1_500 });
    // A span read already, sent again with a later time (a client's retry that changed it): it comes again.
    lines = 0;
    during = async () => right(repos.logRecords.ingest(run.id, [{ ...spans[0]!, createdAt: new Date(early.getTime() + 10_000) }], []));
    await expect(exportProject(repos, owner.id, project.id, write, { checkRepeats: true })).rejects.toThrow(ExportRaced);
    // Unchanged meanwhile, the same export goes through.
    lines = 1_000;
    expect(await exportProject(repos, owner.id, project.id, write, { checkRepeats: true })).toEqual({ runs: 1, records: 1_510 });
    db.close();
  });
});
