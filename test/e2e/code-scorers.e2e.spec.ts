// Code scorers end to end: Python files uploaded to the real server, compiled there in its Pyodide
// sandbox, attached to a log stream and run on what is ingested. One server, one owner: its sandbox
// starts few interpreters (seconds each), so bounds are generous and counts of starts low. The scorers
// that loop run on a second server, whose time limit is short (they wait it out).
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { sandboxEscapeExploit } from '@tracelight/testkit';
import type { Auth } from '../support/http';
import { searchRecords, settledScoring } from '../support/scoring';
import { ADMIN } from '../support/server';
import { startWorld, type World } from '../support/world';

// The server's limit on one call of a scorer: every scorer here must finish within it, a first import
// included, with both cores busy (the contract suite's urllib import once took over 3 s).
const TIME_LIMIT_MS = 10_000;
// The second server's, which the looping scorers wait out. Its other scorers return a constant or a
// length, milliseconds of work once their interpreter is ready (the limit counts from then): 2 s is a wide
// margin with both cores busy, and saves the 8 s of the first server's limit on each of its four waits.
const SHORT_TIME_LIMIT_MS = 2_000;
/** A server that scores at once, with two interpreters and `limitMs` for a scorer's call. */
const scoringWorld = (limitMs: number) =>
  startWorld({
    TRACELIGHT_SCORING_WORKERS: '4',
    TRACELIGHT_SCORING_POLL_MS: '50',
    TRACELIGHT_SCORING_RETRY_BASE_MS: '50',
    TRACELIGHT_SANDBOX_WORKERS: '2',
    TRACELIGHT_SANDBOX_TIME_LIMIT_MS: String(limitMs),
  });
let w: World;

beforeAll(async () => {
  w = await scoringWorld(TIME_LIMIT_MS);
});
afterAll(async () => {
  await w?.server.stop();
});

// An interpreter's start takes seconds, more on a loaded machine: no time limit of its own here (Jest's
// is a bound against a hung test only); the waits for scoring have bounds that say what they waited for.

let n = 0;
const unique = (p: string) => `${p}_${Date.now()}_${++n}`;

/** The ways the tests below act on a server: `on()` is the world they act on (started in a hook). */
const helpersOn = (on: () => World) => {
  const upload = async (auth: Auth, scorerId: string, code: string, fields: Record<string, string> = {}) => {
    const form = new FormData();
    form.append('file', new Blob([code]), 'scorer.py');
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    return on().call('POST', `/v2/scorers/${scorerId}/version/code`, { auth, multipart: form });
  };

  /** A code scorer with one version of `code`. */
  const codeScorer = async (auth: Auth, code: string, prefix = 'code') => {
    const scorer = on().ok(await on().call('POST', '/v2/scorers', { auth, json: { name: unique(prefix), scorer_type: 'code' } }));
    const version = on().ok(await upload(auth, scorer.id, code));
    return { id: scorer.id as string, name: scorer.name as string, version };
  };

  /** A new log stream of a new project, with these scorers attached. */
  const streamScoredBy = async (auth: Auth, scorerIds: ReadonlyArray<string>) => {
    const project = await on().project(auth);
    const logStream = await on().run(auth, project, 'log_streams');
    on().ok(await on().call('POST', `/v2/projects/${project}/runs/${logStream}/scorer-settings`, { auth, json: { scorers: scorerIds.map((id) => ({ scorer_id: id })) } }));
    return { project, logStream };
  };

  const ingest = async (auth: Auth, project: string, logStream: string, traces: unknown[]) =>
    on().ok(await on().call('POST', `/v2/projects/${project}/traces`, { auth, json: { log_stream_id: logStream, traces } }));

  const settled = (auth: Auth, project: string, logStream: string, atLeast: number) => settledScoring(on(), auth, project, logStream, atLeast);
  const search = (auth: Auth, project: string, logStream: string, scope: 'spans' | 'traces', body: Record<string, unknown> = {}) =>
    searchRecords(on(), auth, project, logStream, scope, body);

  /** An upload of `code` to a new scorer of the admin's, refused or not, and the versions the scorer then has. */
  const refusal = async (code: string) => {
    const scorer = on().ok(await on().call('POST', '/v2/scorers', { auth: on().admin, json: { name: unique('refused'), scorer_type: 'code' } }));
    const r = await upload(on().admin, scorer.id, code);
    const versions = on().ok(await on().call('GET', `/v2/scorers/${scorer.id}/versions`, { auth: on().admin }));
    return { status: r.status, body: r.body, versions: versions.versions };
  };
  return { upload, codeScorer, streamScoredBy, ingest, settled, search, refusal };
};
const { upload, codeScorer, streamScoredBy, ingest, settled, search, refusal } = helpersOn(() => w);

const trace = (outputs: string[], type = 'llm') => ({
  id: randomUUID(),
  name: 'conversation',
  input: 'hello',
  output: 'bye',
  spans: outputs.map((output, i) => ({ type, id: randomUUID(), name: `answer-${i}`, input: `question ${i}`, output, created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() })),
});

const LENGTH = `def scorer_fn(*, index, node_input, node_output, **kwargs):
    return len(node_output)

def score_type():
    return int

chain_aggregation = 'sum'

def aggregator_fn(*, scores):
    return {'total': sum(scores)}
`;

const POLITE = `import re

def scorer_fn(*, index, node_input, node_output, **kwargs):
    return re.search(r"\\b(please|thank you)\\b", node_output, re.IGNORECASE) is not None

def score_type():
    return bool
`;

const LABEL = `def scorer_fn(*, index, node_input, node_output, node_name, **kwargs):
    return 'long' if len(node_output) > 10 else 'short'

def score_type():
    return str

chain_aggregation = 'first'
`;

describe('code scorers on ingested records', () => {
  it('scores each llm span with the uploaded files: an int length summed up to the trace, a regex bool, a str label rolled up by first; the columns typed by score_type', async () => {
    const auth = w.admin;
    const length = await codeScorer(auth, LENGTH, 'length');
    expect(length.version.registered_scorer).toMatchObject({ score_type: 'int', data_type: 'integer', scoreable_node_types: ['llm'] });
    const polite = await codeScorer(auth, POLITE, 'polite');
    const label = await codeScorer(auth, LABEL, 'label');
    const { project, logStream } = await streamScoredBy(auth, [length.id, polite.id, label.id]);
    const t = trace(['Thank you, that helps a lot', 'no', 'Please hold']);
    await ingest(auth, project, logStream, [t]);
    const st = await settled(auth, project, logStream, 9);
    for (const s of st.scorers) expect(s.jobs).toEqual({ pending: 0, computing: 0, succeeded: 3, failed: 0, error: 0, not_applicable: 0, not_computed: 0 });

    const spans = (await search(auth, project, logStream, 'spans', { sort: { column_id: 'created_at', ascending: true } })).filter((r) => r['type'] === 'llm');
    expect(spans.map((s) => [s['metrics'][length.name], s['metrics'][polite.name], s['metrics'][label.name]])).toEqual([
      [27, true, 'long'],
      [2, false, 'short'],
      [11, true, 'long'],
    ]);
    expect(spans[1]!['metric_info'][polite.name]).toEqual({ status_type: 'success', scorer_type: 'code', value: false, display_value: 'false', explanation: null, version: 1 });

    const [traceRecord] = await search(auth, project, logStream, 'traces');
    expect(traceRecord!['metrics'][length.name]).toBe(40);
    expect(traceRecord!['metric_info'][length.name]).toMatchObject({ value: 40, roll_up_method: 'sum', roll_up_count: 3 });
    expect(traceRecord!['metrics'][label.name]).toBe('long');
    expect(traceRecord!['metric_info'][label.name]).toMatchObject({ value: 'long', roll_up_method: 'first', roll_up_count: 3 });
    // A bool scorer without chain_aggregation rolls up by the average, which booleans do not take.
    expect(traceRecord!['metrics'][polite.name]).toBeUndefined();

    const columns = w.ok(await w.call('POST', `/v2/projects/${project}/spans/available_columns`, { auth, json: { log_stream_id: logStream } })).columns as Array<Record<string, unknown>>;
    const column = (name: string) => columns.find((c) => c['id'] === `metrics/${name}`);
    expect(column(length.name)).toMatchObject({ data_type: 'integer', filter_type: 'number', roll_up_method: 'sum', is_empty: false });
    expect(column(polite.name)).toMatchObject({ data_type: 'boolean', filter_type: 'boolean', roll_up_method: 'average', is_empty: false });
    expect(column(label.name)).toMatchObject({ data_type: 'text', filter_type: 'text', roll_up_method: 'first', is_empty: false });

    // The columns filter as their types say.
    const politeOnes = await search(auth, project, logStream, 'spans', { filters: [{ type: 'boolean', column_id: `metrics/${polite.name}`, operator: 'eq', value: true }] });
    expect(politeOnes.map((r) => r['output']).sort()).toEqual(['Please hold', 'Thank you, that helps a lot']);
    const longer = await search(auth, project, logStream, 'spans', { filters: [{ type: 'number', column_id: `metrics/${length.name}`, operator: 'gte', value: 11 }] });
    expect(longer).toHaveLength(2);
    const shortOnes = await search(auth, project, logStream, 'spans', { filters: [{ type: 'text', column_id: `metrics/${label.name}`, operator: 'eq', value: 'short' }] });
    expect(shortOnes.map((r) => r['output'])).toEqual(['no']);
  });

  it('scores the node types scoreable_node_types_fn names, and hands scorer_fn the record\'s fields', async () => {
    const auth = w.admin;
    const echo = await codeScorer(
      auth,
      `import json

def scorer_fn(*, index, node_input, node_output, **kwargs):
    return json.dumps({'index': index, 'node_input': node_input, 'node_output': node_output, 'node_name': kwargs['node_name'], 'node_type': kwargs['node_type'], 'node_id': kwargs['node_id'], 'tools': kwargs['tools'], 'dataset_variables': kwargs['dataset_variables']}, sort_keys=True)

def score_type():
    return str

def scoreable_node_types_fn():
    return ['tool']
`,
      'echo',
    );
    expect(echo.version).toMatchObject({ scoreable_node_types: ['tool'], registered_scorer: expect.objectContaining({ scoreable_node_types: ['tool'], score_type: 'str', data_type: 'text' }) });
    const { project, logStream } = await streamScoredBy(auth, [echo.id]);
    const toolId = randomUUID();
    await ingest(auth, project, logStream, [
      {
        id: randomUUID(),
        input: 'hi',
        output: 'bye',
        spans: [
          { type: 'llm', id: randomUUID(), input: 'q', output: 'a' },
          { type: 'tool', id: toolId, name: 'calculator', input: { expression: '2+2' }, output: '4' },
        ],
      },
    ]);
    const st = await settled(auth, project, logStream, 1);
    expect(st.scorers[0].jobs).toMatchObject({ succeeded: 1, pending: 0 });
    const tool = (await search(auth, project, logStream, 'spans')).find((r) => r['type'] === 'tool')!;
    expect(JSON.parse(tool['metrics'][echo.name])).toEqual({
      index: toolId,
      node_input: '{"expression":"2+2"}',
      node_output: '4',
      node_name: 'calculator',
      node_type: 'tool',
      node_id: toolId,
      tools: null,
      dataset_variables: {},
    });
    const llm = (await search(auth, project, logStream, 'spans')).find((r) => r['type'] === 'llm')!;
    expect(llm['metric_info'] ?? {}).not.toHaveProperty(echo.name);
  });

  it('ends a job whose scorer raises in error with the traceback\'s last lines, and one that returns a wrong type in error saying so', async () => {
    const auth = w.admin;
    const raising = await codeScorer(
      auth,
      `def check(text):
    if 'boom' in text:
        raise ValueError(f'cannot score {text!r}')
    return 1.0

def scorer_fn(*, index, node_input, node_output, **kwargs):
    return check(node_output)
`,
      'raising',
    );
    const wrong = await codeScorer(auth, 'def scorer_fn(**kwargs):\n    return {"score": 1}\n', 'wrong');
    const { project, logStream } = await streamScoredBy(auth, [raising.id, wrong.id]);
    await ingest(auth, project, logStream, [trace(['boom goes the output', 'fine'])]);
    const st = await settled(auth, project, logStream, 4);
    expect(st.scorers.map((s: { jobs: Record<string, number> }) => [s.jobs['succeeded'], s.jobs['error']])).toEqual([
      [1, 1],
      [0, 2],
    ]);
    expect(st.scorers[0].last_error.message).toContain("ValueError: cannot score 'boom goes the output'");
    const spans = await search(auth, project, logStream, 'spans', { sort: { column_id: 'created_at', ascending: true } });
    const raised = spans[0]!['metric_info'][raising.name];
    expect(raised).toEqual({ status_type: 'error', scorer_type: 'code', version: 1, message: expect.stringContaining("ValueError: cannot score 'boom goes the output'") });
    expect(raised.message).toMatch(/line 7, in scorer_fn[\s\S]*line 3, in check/);
    expect(spans[0]!['metrics']).not.toHaveProperty(raising.name);
    // The server's log says the job failed, and of the traceback only the exception's type: its message quotes the record.
    const logged = await w.server.waitForOutput(new RegExp(`"scoring job error".*"metric":"${raising.name}"`), 10_000);
    expect(JSON.parse(logged)).toMatchObject({ level: 'warn', state: 'error', reason: "scorer_fn raised ValueError (the traceback is in the record's metric_info)" });
    expect(w.server.output.filter((l) => l.includes('boom goes the output'))).toEqual([]);
    expect(spans[1]!['metric_info'][raising.name]).toMatchObject({ status_type: 'success', value: 1 });
    expect(spans[1]!['metric_info'][wrong.name]).toEqual({
      status_type: 'error',
      scorer_type: 'code',
      version: 1,
      message: 'scorer_fn returned a dict: it must return a float, int, bool, str or None',
    });
  });

  it('lets no host data reach a scorer: no /etc/passwd, no network, no environment', async () => {
    const auth = w.admin;
    const probe = (body: string) => `def scorer_fn(*, index, node_input, node_output, **kwargs):\n${body.split('\n').map((l) => `    ${l}`).join('\n')}\n\ndef score_type():\n    return str\n`;
    const passwd = await codeScorer(auth, probe("try:\n    return open('/etc/passwd').read()\nexcept Exception as e:\n    return type(e).__name__ + ': ' + str(e)"), 'passwd');
    const socket = await codeScorer(
      auth,
      probe("import socket\ntry:\n    s = socket.create_connection(('127.0.0.1', 22), timeout=1)\n    return 'connected: ' + repr(s.recv(64))\nexcept Exception as e:\n    return type(e).__name__ + ': ' + str(e)"),
      'socket',
    );
    const environ = await codeScorer(auth, probe('import os\nreturn repr(dict(os.environ))'), 'environ');
    const { project, logStream } = await streamScoredBy(auth, [passwd.id, socket.id, environ.id]);
    await ingest(auth, project, logStream, [trace(['probe'])]);
    await settled(auth, project, logStream, 3);
    const [span] = await search(auth, project, logStream, 'spans');
    expect(span!['metrics'][passwd.name]).toBe("FileNotFoundError: [Errno 44] No such file or directory: '/etc/passwd'");
    expect(span!['metrics'][socket.name]).toBe('PermissionError: [Errno 63] Operation not permitted');
    expect(span!['metrics'][environ.name]).toBe('{}');
  });

  it('ends a job whose str value is too long in error saying so, and logs none of what the scorer said (M2, M3, L2)', async () => {
    const auth = w.admin;
    const long = await codeScorer(auth, "def scorer_fn(*, node_output, **kwargs):\n    return 'x' * (int(node_output) * 1_000_000)\n\ndef score_type():\n    return str\n", 'long');
    const named = await codeScorer(auth, "def scorer_fn(*, node_output, **kwargs):\n    return type('Q' * 5_000_000, (), {})()\n", 'named');
    const raising = await codeScorer(auth, "def scorer_fn(*, node_output, **kwargs):\n    raise ValueError('bad record\\n' + node_output)\n", 'leaking');
    const { project, logStream } = await streamScoredBy(auth, [long.id, named.id, raising.id]);
    await ingest(auth, project, logStream, [trace(['50']), trace(['customer_secret_4242'])]);
    const st = await settled(auth, project, logStream, 6);
    const spans = await search(auth, project, logStream, 'spans', { sort: { column_id: 'created_at', ascending: true } });
    const fifty = spans.find((x) => x['output'] === '50')!;
    expect(fifty['metric_info'][long.name]).toEqual({
      status_type: 'error',
      scorer_type: 'code',
      version: 1,
      message: 'scorer_fn returned a str of 50000000 characters: a value holds at most 4096 (a label or a short text)',
    });
    expect(fifty['metrics']).not.toHaveProperty(long.name);
    const message = fifty['metric_info'][named.name].message as string;
    expect(message.length).toBeLessThan(200);
    expect(message).toMatch(/^scorer_fn returned a Q+…: it must return a float, int, bool, str or None$/);
    for (const s of st.scorers) expect(JSON.stringify(s.last_error).length).toBeLessThan(3_000);
    // The log: fixed reasons and an exception's type, nothing the scorer or the record said.
    await w.server.waitForOutput(new RegExp(`"scoring job error".*"metric":"${raising.name}"`), 10_000);
    const logged = w.server.output.filter((l) => l.includes('"scoring job error"'));
    expect(logged.filter((l) => l.includes('customer_secret_4242') || l.includes('QQQQ') || l.length > 2_000)).toEqual([]);
    expect(logged.some((l) => l.includes("scorer_fn raised ValueError (the traceback is in the record's metric_info)"))).toBe(true);
  });

  it('keeps luna versions\' jobs as not_computed, saying they need the origin\'s model runtime', async () => {
    const auth = w.admin;
    const luna = w.ok(await w.call('POST', '/v2/scorers', { auth, json: { name: unique('luna'), scorer_type: 'luna', defaults: { scoreable_node_types: ['llm'] } } }));
    w.ok(await w.call('POST', `/v2/scorers/${luna.id}/version/luna`, { auth, json: { lora_task_id: 1, prompt: 'p' } }));
    const { project, logStream } = await streamScoredBy(auth, [luna.id]);
    await ingest(auth, project, logStream, [trace(['x'])]);
    await settled(auth, project, logStream, 1);
    const [span] = await search(auth, project, logStream, 'spans');
    expect(span!['metric_info'][luna.name]).toEqual({
      status_type: 'not_computed',
      scorer_type: 'luna',
      version: 1,
      message: "fine-tuned (luna) scorers need the origin's model runtime, which this server does not have",
    });
  });
});

describe('code scorer uploads', () => {
  it('keeps an uploaded exploit (H1) from the server\'s secret key, its environment and the network, though the upload runs it', async () => {
    const secretKey = fs.readFileSync(path.join(w.server.dataDir, 'secret.key'), 'utf8').trim();
    expect(secretKey.length).toBeGreaterThan(20);
    const received: string[] = [];
    const listener = net.createServer((socket) => {
      received.push('connected');
      socket.on('data', (d: Buffer) => received.push(d.toString('utf8')));
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const port = (listener.address() as net.AddressInfo).port;
      const exploit = sandboxEscapeExploit([path.join(w.server.dataDir, 'secret.key'), '/proc/self/environ', '/etc/hostname'], port);
      const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: unique('exploit'), scorer_type: 'code' } }));
      const r = await upload(w.admin, scorer.id, exploit);
      // The file is refused: ctypes is not there to import.
      expect([r.status, r.body.detail?.[0]?.msg]).toEqual([422, "Value error, line 1: ModuleNotFoundError: No module named 'ctypes' (raised as the file was read)"]);
      // What the exploit would have sent had it reached the runtime (its steps ran on after the upload
      // answered): another upload of the owner's, in the same interpreter, answered after them.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      w.ok(await upload(w.admin, scorer.id, 'def scorer_fn(**kwargs):\n    return 1\n'));
      expect(received).toEqual([]);
      expect(JSON.stringify(r.body)).not.toContain(secretKey);
      expect(w.server.output.filter((l) => l.includes(secretKey) || l.includes(ADMIN.password))).toEqual([]);
    } finally {
      listener.close();
    }
  });

  it('refuses scoreable_node_types naming no node type (L3), at its index', async () => {
    const scorer = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: unique('types'), scorer_type: 'code' } }));
    const r = await upload(w.admin, scorer.id, 'def scorer_fn(**kwargs):\n    return 1\n', { scoreable_node_types: '["llm", "nope"]' });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'scoreable_node_types', 1], type: 'enum', input: 'nope' })]);
    expect(w.ok(await w.call('GET', `/v2/scorers/${scorer.id}/versions`, { auth: w.admin })).versions).toEqual([]);
  });

  it('refuses a syntax error with a 422 naming the line, and stores no version', async () => {
    const r = await refusal('import re\n\ndef scorer_fn(*, node_output, **kwargs)\n    return 1.0\n');
    expect(r.status).toBe(422);
    expect(r.body).toEqual({
      detail: [{ loc: ['body', 'file'], msg: expect.stringMatching(/^Value error, line 3: SyntaxError: /), type: 'value_error', input: 'def scorer_fn(*, node_output, **kwargs)' }],
    });
    expect(r.versions).toEqual([]);
  });

  it('refuses a file without scorer_fn, a scorer_fn without **kwargs, a file that raises as it loads, and hooks that break the contract (one that loops: below)', async () => {
    expect((await refusal('def score(x):\n    return 1\n')).body.detail[0].msg).toBe(
      'Value error, the file defines no scorer_fn: a scorer file must define scorer_fn(*, index, node_input, node_output, **kwargs)',
    );
    expect((await refusal('\ndef scorer_fn(*, node_output):\n    return 1\n')).body.detail[0]).toMatchObject({ msg: expect.stringMatching(/^Value error, line 2: scorer_fn must take \*\*kwargs/), input: 'def scorer_fn(*, node_output):' });
    expect((await refusal('import json\nLIMIT = 1 / 0\n\ndef scorer_fn(**kwargs):\n    return 1\n')).body.detail[0]).toMatchObject({
      msg: 'Value error, line 2: ZeroDivisionError: division by zero (raised as the file was read)',
    });
    expect((await refusal('def scorer_fn(**kwargs):\n    return 1\n\ndef score_type():\n    return list\n')).body.detail[0].msg).toContain('score_type() returned list');
    expect((await refusal('def scorer_fn(**kwargs):\n    return 1\n\nchain_aggregation = "median"\n')).body.detail[0].msg).toContain('chain_aggregation is "median"');
  });
});

describe('code scorers that run past the time limit (a server whose limit is short)', () => {
  let q: World;
  beforeAll(async () => {
    q = await scoringWorld(SHORT_TIME_LIMIT_MS);
  });
  afterAll(async () => {
    await q?.server.stop();
  });
  const { upload, codeScorer, streamScoredBy, ingest, settled, search, refusal } = helpersOn(() => q);

  it('ends a scorer that loops forever at the time limit, replaces its interpreter, and other jobs are unaffected', async () => {
    const auth = q.admin;
    const looping = await codeScorer(auth, "def scorer_fn(*, node_output, **kwargs):\n    if 'spin' in node_output:\n        while True:\n            pass\n    return 0.5\n", 'looping');
    const length = await codeScorer(auth, LENGTH, 'length');
    const { project, logStream } = await streamScoredBy(auth, [looping.id, length.id]);
    await ingest(auth, project, logStream, [trace(['spin', 'calm', 'spin please', 'also calm'])]);
    const st = await settled(auth, project, logStream, 8);
    expect(st.scorers.map((s: { jobs: Record<string, number> }) => [s.jobs['succeeded'], s.jobs['error']])).toEqual([
      [2, 2],
      [4, 0],
    ]);
    const spans = await search(auth, project, logStream, 'spans', { sort: { column_id: 'created_at', ascending: true } });
    expect(spans.map((s) => s['metric_info'][looping.name].status_type)).toEqual(['error', 'success', 'error', 'success']);
    expect(spans[0]!['metric_info'][looping.name].message).toBe(`scorer_fn ran past the time limit of ${SHORT_TIME_LIMIT_MS / 1000} s and was stopped`);
    expect(spans.map((s) => s['metrics'][length.name])).toEqual([4, 4, 11, 9]);
    const metrics = (await q.call('GET', '/metrics')).text;
    expect(metrics).toMatch(/^tracelight_sandbox_replaced_total\{reason="timeout"\} [2-9]\d*$/m);
    // The next record is scored as ever, by a new interpreter.
    await ingest(auth, project, logStream, [trace(['after the loops'])]);
    await settled(auth, project, logStream, 10);
    const [latest] = await search(auth, project, logStream, 'spans', { sort: { column_id: 'created_at', ascending: false } });
    expect(latest!['metric_info'][looping.name]).toMatchObject({ status_type: 'success', value: 0.5 });
  });

  it('keeps one owner\'s uploads from holding the sandbox (M6): past its share they are refused 429 with Retry-After, and another owner\'s upload is answered', async () => {
    const alice = q.admin;
    const bob = (await q.user(`bob-${randomUUID()}@example.com`)).auth;
    const spinner = q.ok(await q.call('POST', '/v2/scorers', { auth: alice, json: { name: unique('spin'), scorer_type: 'code' } }));
    const calm = q.ok(await q.call('POST', '/v2/scorers', { auth: bob, json: { name: unique('calm'), scorer_type: 'code' } }));
    // Two run (the pool's two interpreters), two may wait, the rest are refused at once.
    const spins = Array.from({ length: 6 }, () => upload(alice, spinner.id, 'while True:\n    pass\n'));
    const bobs = upload(bob, calm.id, 'def scorer_fn(**kwargs):\n    return 1\n');
    const answers = await Promise.all(spins);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(refused[0]!.headers.get('retry-after')).toBe(String(SHORT_TIME_LIMIT_MS / 1000));
    expect(refused[0]!.body.detail).toMatch(/busy with your uploads/);
    expect(answers.filter((a) => a.status !== 429).map((a) => a.status)).toEqual(answers.filter((a) => a.status !== 429).map(() => 422));
    expect((await bobs).status).toBe(200);
  });

  it('refuses a file that does not finish loading within the time limit (one that loops)', async () => {
    const looping = await refusal('while True:\n    pass\n');
    expect([looping.status, looping.body.detail[0].msg]).toEqual([422, `Value error, the file did not finish loading within ${SHORT_TIME_LIMIT_MS / 1000} s`]);
    expect(looping.versions).toEqual([]);
  });
});
