// Real OpenTelemetry traffic: the official SDK and OTLP exporters (protobuf and JSON), in a process
// of their own, send spans to the running server, which stores them as traces and spans.
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { startWorld, type World } from '../support/world';

let w: World;
let key: string;
let projectName: string;
let projectId: string;

/** Runs test/support/otel-emitter.cjs: `agent` (an agent span, an LLM call, a failed tool call) or `events` (data in span events). */
const emitRun = async (run: 'agent' | 'events', encoding: 'proto' | 'json', url: string, headers: Record<string, string>, tag: string, compression: 'gzip' | 'none' = 'none'): Promise<string> => {
  const script = path.join(__dirname, '../support/otel-emitter.cjs');
  const { stdout } = await promisify(execFile)(process.execPath, [script, run, encoding, url, JSON.stringify(headers), tag, compression]);
  return stdout.trim();
};
const emit = (encoding: 'proto' | 'json', url: string, headers: Record<string, string>, tag: string, compression: 'gzip' | 'none') =>
  emitRun('agent', encoding, url, headers, tag, compression);
/** Spans whose data is in their events: recorded exceptions, and a GenAI prompt and completion. */
const emitEvents = (encoding: 'proto' | 'json', url: string, headers: Record<string, string>, tag: string) => emitRun('events', encoding, url, headers, tag);

const searchSpans = (logStreamId: string, traceRecordId: string) =>
  w.call('POST', `/v2/projects/${projectId}/spans/search`, {
    auth: w.admin,
    json: { log_stream_id: logStreamId, filters: [{ column_id: 'trace_id', type: 'id', operator: 'eq', value: traceRecordId }], sort: { column_id: 'created_at', ascending: true } },
  });
const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

// Every assertion holds on both paths: exports decoded on the request thread, and exports handed to
// an offload worker (here every one, with TRACELIGHT_OFFLOAD_MIN_BYTES=0), errors included.
describe.each([
  ['decoded on the request thread', { TRACELIGHT_OFFLOAD_WORKERS: '0' }],
  ['handed to an offload worker', { TRACELIGHT_OFFLOAD_MIN_BYTES: '0' }],
])('OTLP exports %s', (_mode, env: Record<string, string>) => {
  beforeAll(async () => {
    w = await startWorld(env);
    key = await w.apiKey(w.admin);
    projectName = `otel-${Date.now()}`;
    projectId = w.ok(await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: projectName } })).id;
  });
  afterAll(() => w.server.stop());

  describe.each([
    ['proto', '/otel/traces', 'none'],
    ['proto', '/v1/traces', 'gzip'],
    ['json', '/v1/traces', 'none'],
    ['json', '/otel/traces', 'gzip'],
  ] as const)('OTLP/HTTP %s at %s, compression %s', (encoding, route, compression) => {
    it('stores the exported spans as a trace with typed, linked spans', async () => {
      const tag = `${encoding}-${compression}-${route.replace(/\//g, '')}`;
      const logstream = `otel-${tag}`;
      const traceId = await emit(encoding, `${w.server.baseUrl}${route}`, { 'Service-API-Key': key, project: projectName, logstream }, tag, compression);
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);
      const streams = w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams?name=${logstream}`, { auth: w.admin }));
      expect(streams).toHaveLength(1);
      const traceRecordId = uuidOf(traceId);
      const traces = w.ok(await w.call('POST', `/v2/projects/${projectId}/traces/search`, { auth: w.admin, json: { log_stream_id: streams[0].id } }));
      expect(traces.records.map((r: { id: string }) => r.id)).toEqual([traceRecordId]);
      expect(traces.records[0]).toMatchObject({ type: 'trace', name: `agent-${tag}`, input: 'Plan a trip to Paris ✓', output: 'Booked.' });

      const spans = w.ok(await searchSpans(streams[0].id, traceRecordId)).records;
      const byType = Object.fromEntries(spans.map((s: { type: string }) => [s.type, s]));
      expect(Object.keys(byType).sort()).toEqual(['agent', 'llm', 'tool']);
      expect(byType.agent).toMatchObject({ parent_id: traceRecordId, has_children: true, input: 'Plan a trip to Paris ✓' });
      expect(byType.llm).toMatchObject({
        parent_id: byType.agent.id,
        model: 'gpt-4o-mini',
        temperature: 0.3,
        finish_reason: 'tool_calls',
        // The GenAI conventions 1.37's messages, in the shape the origin's SDKs send: the system instructions first.
        input: [{ role: 'system', content: 'You plan trips.' }, { role: 'user', content: 'Plan a trip to Paris' }],
        output: { role: 'assistant', content: '', tool_calls: [{ id: `call-${tag}`, function: { name: 'book_hotel', arguments: '{"city":"Paris"}' } }] },
        tools: '[{"type":"function","function":{"name":"book_hotel","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]',
        metrics: expect.objectContaining({ num_input_tokens: 42, num_output_tokens: 7, num_total_tokens: 49 }),
      });
      expect(byType.tool).toMatchObject({
        parent_id: byType.agent.id,
        name: 'book_hotel',
        tool_call_id: `call-${tag}`,
        input: { city: 'Paris' },
        output: 'ok',
        status_code: 500,
        error_message: 'hotel full',
      });
    });
  });

  describe.each(['proto', 'json'] as const)('OTLP/HTTP %s span events', (encoding) => {
    it('names a failed span\'s error by its recorded exception, keeps an exception on a span that did not fail in its metadata, and reads a GenAI prompt and completion from events', async () => {
      const logstream = `otel-events-${encoding}`;
      const traceId = await emitEvents(encoding, `${w.server.baseUrl}/v1/traces`, { 'Service-API-Key': key, project: projectName, logstream }, encoding);
      const streams = w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams?name=${logstream}`, { auth: w.admin }));
      const spans = w.ok(await searchSpans(streams[0].id, uuidOf(traceId))).records as Array<Record<string, unknown>>;
      const byName = Object.fromEntries(spans.map((s) => [s['name'], s]));
      expect(Object.keys(byName).sort()).toEqual(['chat', `events-${encoding}`, 'failed', 'recovered']);
      expect(byName['failed']).toMatchObject({ status_code: 500, error_message: 'Error: boom', user_metadata: { 'exception.type': 'Error', 'exception.message': 'boom' } });
      expect(byName['recovered']).toMatchObject({ status_code: null, error_message: null, user_metadata: { 'exception.type': 'TypeError', 'exception.message': 'flaky' } });
      // The SDK's recordException adds the stack trace of the error: where it was thrown, in the emitter.
      expect((byName['failed']!['user_metadata'] as Record<string, string>)['exception.stacktrace']).toMatch(/^Error: boom\n\s+at .*otel-emitter\.cjs/);
      expect(byName['chat']).toMatchObject({
        type: 'llm',
        input: [{ role: 'user', content: 'Plan a trip to Paris' }],
        output: { role: 'assistant', content: 'Booked.' },
        status_code: null,
        user_metadata: { 'otel.scope.name': 'tracelight-e2e', 'service.name': expect.any(String) },
      });
      expect(Object.keys(byName['chat']!['user_metadata'] as object).sort()).toEqual(['otel.scope.name', 'service.name']);
    });
  });

  describe('OTLP errors', () => {
    it('answers as OTLP/HTTP asks, with a google.rpc.Status: 400 when no project is named, 404 for an unknown project, 401 without a key', async () => {
      const body = { resourceSpans: [] };
      const noHeaders = await w.call('POST', '/v1/traces', { auth: { apiKey: key }, json: body });
      expect(noHeaders.status).toBe(400);
      expect(noHeaders.body).toEqual({
        code: 3,
        message: "body: Value error, no project named: send the `project` header, or the resource attribute openinference.project.name (Phoenix's projectName)",
      });
      const unknown = await w.call('POST', '/v1/traces', { auth: { apiKey: key }, json: body, headers: { project: 'no-such-project', logstream: 'x' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ code: 5, message: 'Project not found' });
      const anonymous = await w.call('POST', '/v1/traces', { json: body, headers: { project: projectName, logstream: 'x' } });
      expect([anonymous.status, anonymous.body.code]).toEqual([401, 16]);
    });

    it('reads the project and logstream headers as UTF-8, as exporters send text, and as Latin-1 only where their bytes are not UTF-8', async () => {
      const project = w.ok(await w.call('POST', '/v2/projects', { auth: w.admin, json: { name: `projé ☕ ${Date.now()}` } }));
      // What a client sends as UTF-8 bytes; fetch takes a header value as one byte a character.
      const asUtf8Bytes = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
      const streams = async () =>
        (w.ok(await w.call('GET', `/v2/projects/${project.id}/log_streams`, { auth: w.admin })) as Array<{ name: string }>).map((s) => s.name).sort();
      for (const [logstream, sent] of [['café ☕', asUtf8Bytes('café ☕')], ['cafè', 'cafè']] as const) {
        const r = await w.call('POST', '/v1/traces', { auth: { apiKey: key }, json: { resourceSpans: [] }, headers: { project: asUtf8Bytes(project.name), logstream: sent } });
        expect([logstream, r.status]).toEqual([logstream, 200]);
      }
      expect(await streams()).toEqual(['cafè', 'café ☕']);
    });

    it('answers 400 for bytes that are not an OTLP export (a protobuf Status to a protobuf request), and for spans without valid ids', async () => {
      const garbage = await w.call('POST', '/otel/traces', {
        auth: { apiKey: key },
        raw: Buffer.from([0xff, 0xff, 0xff, 0x01, 0x02]),
        headers: { 'content-type': 'application/x-protobuf', project: projectName, logstream: 'bad' },
      });
      expect(garbage.status).toBe(400);
      expect(garbage.headers.get('content-type')).toBe('application/x-protobuf');
      // google.rpc.Status: field 1, code 3 (INVALID_ARGUMENT); field 2, the message.
      const status = Buffer.from(garbage.text, 'latin1');
      expect([status[0], status[1], status[2]]).toEqual([0x08, 3, 0x12]);
      expect(status.subarray(4).toString('utf8')).toMatch(/not an OTLP protobuf trace export/);
      const badIds = await w.call('POST', '/v1/traces', {
        auth: { apiKey: key },
        json: { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'xyz', spanId: '1', name: 'n' }] }] }] },
        headers: { project: projectName, logstream: 'bad' },
      });
      expect(badIds.status).toBe(400);
      expect(badIds.body).toEqual({ code: 3, message: expect.stringMatching(/^body: .*traceId/) });
    });
  });

  describe('OTLP/JSON exports with hostile or odd values', () => {
    const traceId = () => Array.from({ length: 32 }, () => '0123456789abcdef'[Math.floor(Math.random() * 16)]).join('');
    const export1 = (attributes: Record<string, string>, span: Record<string, unknown> = {}) => ({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: traceId(), spanId: 'b7ad6b7169203331', name: 'odd', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000', attributes: Object.entries(attributes).map(([k, v]) => ({ key: k, value: { stringValue: v } })), ...span }] }] }],
    });
    const send = (logstream: string, body: unknown) => w.call('POST', '/v1/traces', { auth: { apiKey: key }, json: body, headers: { project: projectName, logstream } });
    const spansOf = async (logstream: string) => {
      const runs = w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams?name=${encodeURIComponent(logstream)}`, { auth: w.admin })) as Array<{ id: string }>;
      if (runs.length === 0) return undefined;
      return w.ok(await w.call('POST', `/v2/projects/${projectId}/spans/search`, { auth: w.admin, json: { log_stream_id: runs[0]!.id } })).records as Array<Record<string, unknown>>;
    };

    it('stores a Zipkin/B3 root span (its id the trace id\'s second half) apart from its trace and linked to it, under the same ids when sent again', async () => {
      const b3TraceId = '00000000000000001234567890abcdef';
      const times = { startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000001000000000' };
      const body = {
        resourceSpans: [{ scopeSpans: [{ spans: [
          { traceId: b3TraceId, spanId: '1234567890abcdef', name: 'GET /root', ...times, attributes: [{ key: 'input.value', value: { stringValue: 'root input' } }] },
          { traceId: b3TraceId, spanId: 'aaaaaaaaaaaaaaaa', parentSpanId: '1234567890abcdef', name: 'llm call', ...times, attributes: [{ key: 'openinference.span.kind', value: { stringValue: 'LLM' } }] },
        ] }] }],
      };
      // Sent twice, as an exporter retries: the second replaces the first.
      for (const attempt of [1, 2]) expect([attempt, (await send('b3', body)).status]).toEqual([attempt, 200]);
      const [stream] = w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams?name=b3`, { auth: w.admin })) as Array<{ id: string }>;
      const traces = w.ok(await w.call('POST', `/v2/projects/${projectId}/traces/search`, { auth: w.admin, json: { log_stream_id: stream!.id } })).records;
      expect(traces.map((t: Record<string, unknown>) => [t['id'], t['name'], t['input'], t['has_children']])).toEqual([[uuidOf(b3TraceId), 'GET /root', 'root input', true]]);
      const spans = (await spansOf('b3'))!.sort((a, b) => String(a['name']).localeCompare(String(b['name'])));
      // The root span: the trace id's first half with every bit flipped, then its own id; the child as any span.
      expect(spans.map((sp) => [sp['name'], sp['type'], sp['id'], sp['parent_id'], sp['trace_id'], sp['has_children']])).toEqual([
        ['GET /root', 'workflow', 'ffffffff-ffff-ffff-1234-567890abcdef', uuidOf(b3TraceId), uuidOf(b3TraceId), true],
        ['llm call', 'llm', '00000000-0000-0000-aaaa-aaaaaaaaaaaa', 'ffffffff-ffff-ffff-1234-567890abcdef', uuidOf(b3TraceId), false],
      ]);
    });

    it('refuses with 400 an export with a span sent twice in it, storing nothing and creating no log stream', async () => {
      const twice = export1({ 'input.value': 'once' });
      const one = twice.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
      twice.resourceSpans[0]!.scopeSpans[0]!.spans.push({ ...one });
      const sentTwice = await send('span-twice', twice);
      expect([sentTwice.status, sentTwice.body]).toEqual([400, { code: 3, message: `body: Value error, span b7ad6b7169203331 of trace ${one.traceId} is in this export twice` }]);
      expect(await spansOf('span-twice')).toBeUndefined();
    });

    describe('two root spans of one trace (a service that starts a root of its own under a trace id it was given)', () => {
      const rootsTraceId = traceId();
      const ns = (s: number) => `${1_700_000_000 + s}000000000`;
      const spanOf = (spanId: string, parentSpanId: string | undefined, name: string, start: number, input: string) => ({
        traceId: rootsTraceId, spanId, ...(parentSpanId ? { parentSpanId } : {}), name, startTimeUnixNano: ns(start), endTimeUnixNano: ns(start + 5),
        attributes: [{ key: 'input.value', value: { stringValue: input } }],
      });
      const exportOf = (...spans: ReadonlyArray<Record<string, unknown>>) => ({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
      // The request's root starts first, but ends (and is exported) last; the worker's root starts later.
      const request = exportOf(spanOf('1000000000000001', undefined, 'request', 0, 'request input'), spanOf('1000000000000002', '1000000000000001', 'request child', 1, 'request child input'));
      const worker = exportOf(spanOf('2000000000000001', undefined, 'worker', 2, 'worker input'), spanOf('2000000000000002', '2000000000000001', 'worker child', 3, 'worker child input'));
      const both = exportOf(...worker.resourceSpans[0]!.scopeSpans[0]!.spans, ...request.resourceSpans[0]!.scopeSpans[0]!.spans);
      const deliveries = { 'worker first': [worker, request], 'request first': [request, worker], 'in one export': [both] } as const;

      /** Everything stored of the log stream but updated_at (the time of the last write). */
      const storedOf = async (logstream: string) => {
        const [stream] = w.ok(await w.call('GET', `/v2/projects/${projectId}/log_streams?name=${logstream}`, { auth: w.admin })) as Array<{ id: string }>;
        const search = async (scope: 'traces' | 'spans') =>
          (w.ok(await w.call('POST', `/v2/projects/${projectId}/${scope}/search`, { auth: w.admin, json: { log_stream_id: stream!.id, sort: { column_id: 'created_at', ascending: true } } })).records as Array<Record<string, unknown>>)
            .map(({ updated_at: _, ...rest }) => rest);
        return { traces: await search('traces'), spans: await search('spans') };
      };
      const idOf = (spanId: string) => `${uuidOf(rootsTraceId).slice(0, 18)}-${spanId.slice(0, 4)}-${spanId.slice(4)}`;

      it('keeps both roots and their children whatever the order or batching of the exports, the trace record made from the root that started first, and a retry of any export changes nothing', async () => {
        const stored: Record<string, Awaited<ReturnType<typeof storedOf>>> = {};
        for (const [how, exports] of Object.entries(deliveries)) {
          const logstream = `two-roots-${how.replace(/ /g, '-')}`;
          for (const body of exports) expect([how, (await send(logstream, body)).status]).toEqual([how, 200]);
          stored[how] = await storedOf(logstream);
          // Sent again, each of them, in either order: an exporter's retry.
          for (const body of [...exports].reverse()) expect([how, (await send(logstream, body)).status]).toEqual([how, 200]);
          expect([how, await storedOf(logstream)]).toEqual([how, stored[how]]);
        }
        const trace = uuidOf(rootsTraceId);
        const { traces, spans } = stored['worker first']!;
        expect(traces.map((t) => [t['id'], t['name'], t['input'], t['created_at'], t['has_children']])).toEqual([[trace, 'request', 'request input', '2023-11-14T22:13:20.000Z', true]]);
        expect(spans.map((sp) => [sp['name'], sp['id'], sp['parent_id'], sp['trace_id'], sp['input'], sp['has_children']])).toEqual([
          ['request', idOf('1000000000000001'), trace, trace, 'request input', true],
          ['request child', idOf('1000000000000002'), idOf('1000000000000001'), trace, 'request child input', false],
          ['worker', idOf('2000000000000001'), trace, trace, 'worker input', true],
          ['worker child', idOf('2000000000000002'), idOf('2000000000000001'), trace, 'worker child input', false],
        ]);
        // The same records, but for the log stream (run) they are in.
        const withoutRun = (s: Awaited<ReturnType<typeof storedOf>>) => JSON.parse(JSON.stringify(s).replace(/"run_id":"[^"]*"/g, '"run_id":null'));
        expect(withoutRun(stored['request first']!)).toEqual(withoutRun(stored['worker first']!));
        expect(withoutRun(stored['in one export']!)).toEqual(withoutRun(stored['worker first']!));
      });
    });

    it('takes an operation name every object inherits (toString, constructor, __proto__) as no known operation, and goes on serving', async () => {
      for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
        const r = await send('inherited', export1({ 'gen_ai.operation.name': name }));
        expect([name, r.status]).toEqual([name, 200]);
      }
      expect((await w.call('GET', '/healthcheck')).status).toBe(200);
      expect((await spansOf('inherited'))!.map((s) => s['type'])).toEqual(['workflow', 'workflow', 'workflow', 'workflow']);
    });

    it('takes a span kind or operation sent as a map or a list (a kvlistValue, an arrayValue) as none, where reading it as text threw (500)', async () => {
      const map = { kvlistValue: { values: [{ key: 'k', value: { stringValue: 'LLM' } }] } };
      const attributes = [
        { key: 'openinference.span.kind', value: map },
        { key: 'gen_ai.operation.name', value: { arrayValue: { values: [map] } } },
      ];
      expect((await send('kind-as-map', export1({}, { attributes }))).status).toBe(200);
      expect((await spansOf('kind-as-map'))!.map((s) => s['type'])).toEqual(['workflow']);
    });

    it('takes an attribute named __proto__ as an attribute like any other, which answers for no other key', async () => {
      const kvlist = (entries: Record<string, string>) => ({ kvlistValue: { values: Object.entries(entries).map(([k, v]) => ({ key: k, value: { stringValue: v } })) } });
      const attributes = [
        { key: '__proto__', value: kvlist({ 'input.value': 'never sent as input.value', 'gen_ai.request.model': 'nor as a model' }) },
        { key: 'output.value', value: { kvlistValue: { values: [{ key: '__proto__', value: { stringValue: 'kept' } }, { key: 'q', value: { stringValue: 'b' } }] } } },
      ];
      const r = await send('proto-keys', export1({}, { attributes }));
      expect(r.status).toBe(200);
      const [span] = (await spansOf('proto-keys'))!;
      expect(span).toMatchObject({ type: 'workflow', input: '', output: JSON.parse('{"__proto__":"kept","q":"b"}') });
      expect(span!['model']).toBeUndefined();
    });

    it('keeps text inputs as text, reads JSON ones by their mime type, and keeps a JSON document nested too deep as the text it came as', async () => {
      const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
      expect((await send('values', export1({ 'input.value': '42', 'output.value': 'null', 'input.mime_type': 'text/plain' }))).status).toBe(200);
      expect((await send('values', export1({ 'input.value': '{"q":"json"}', 'input.mime_type': 'application/json', 'output.value': 'true' }))).status).toBe(200);
      expect((await send('values', export1({ 'input.value': '[1,2]', 'output.value': deep }))).status).toBe(200);
      const found = (await spansOf('values'))!.map((s) => [s['input'], s['output']]);
      expect(found).toEqual(expect.arrayContaining([['42', 'null'], [{ q: 'json' }, 'true'], [[1, 2], deep]]));
    });

    it('dates a span sent without a start time when it was received, and gives no duration to a span without both ends in order', async () => {
      const spans = [
        { spanId: '0000000000000001', name: 'no start', startTimeUnixNano: undefined, endTimeUnixNano: '1700000001000000000' },
        { spanId: '0000000000000002', name: 'no end', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: undefined },
        { spanId: '0000000000000003', name: 'ends first', startTimeUnixNano: '1700000002000000000', endTimeUnixNano: '1700000001000000000' },
        { spanId: '0000000000000004', name: 'whole', startTimeUnixNano: '1700000000000000000', endTimeUnixNano: '1700000000250000000' },
      ];
      const body = export1({});
      const one = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
      // Spans without one of their times, which the fixture's type (made from a whole span) does not allow.
      body.resourceSpans[0]!.scopeSpans[0]!.spans = spans.map((s) => ({ ...one, ...s, parentSpanId: 'ffffffffffffffff' })) as unknown as Array<typeof one>;
      const before = Date.now();
      expect((await send('times', body)).status).toBe(200);
      const after = Date.now();
      const found: Record<string, Record<string, unknown>> = Object.fromEntries((await spansOf('times'))!.map((s) => [s['name'], s]));
      const received = Date.parse(found['no start']!['created_at'] as string);
      expect(received).toBeGreaterThanOrEqual(before - 1);
      expect(received).toBeLessThanOrEqual(after);
      expect(Object.fromEntries(Object.entries(found).map(([name, s]) => [name, s['metrics']]))).toEqual({
        'no start': {},
        'no end': {},
        'ends first': {},
        whole: { duration_ns: 250_000_000 },
      });
      expect(found['no end']!['created_at']).toBe('2023-11-14T22:13:20.000Z');
    });

    it('refuses events that are not a list of objects with 400, and passes over events of no name it reads, creating no log stream for a refused export', async () => {
      for (const [i, events] of [['not a list'], [[null]], [[{ name: 'exception' }, 7]]].entries()) {
        const r = await send(`bad-events-${i}`, export1({}, { events }));
        expect([events, r.status, r.body.code]).toEqual([events, 400, 3]);
        expect(await spansOf(`bad-events-${i}`)).toBeUndefined();
      }
      const odd = [{ name: 5 }, { name: 'exception', attributes: 'none' }, { name: 'exception', attributes: [{ key: 'exception.message', value: { stringValue: 'second' } }] }];
      expect((await send('odd-events', export1({}, { status: { code: 2 }, events: odd }))).status).toBe(200);
      expect((await spansOf('odd-events'))![0]).toMatchObject({ status_code: 500, error_message: 'error' });
    });

    it('refuses an export whose resourceSpans, scopeSpans or spans are not lists of objects with 400, storing none of its spans', async () => {
      const span = export1({}).resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
      const bad: ReadonlyArray<readonly [unknown, string]> = [
        [{ resourceSpans: { scopeSpans: [{ spans: [span] }] } }, 'resourceSpans is not a list'],
        [{ resourceSpans: 'x' }, 'resourceSpans is not a list'],
        [{ resourceSpans: [5] }, 'resourceSpans entry 0 is not an object'],
        [{ resourceSpans: [{ scopeSpans: { spans: [span] } }] }, 'resourceSpans[0].scopeSpans is not a list'],
        [{ resourceSpans: [{ scopeSpans: [{ spans: [span] }, 'x'] }] }, 'resourceSpans[0].scopeSpans entry 1 is not an object'],
        [{ resourceSpans: [{ scopeSpans: [{ spans: { 0: span } }] }] }, 'resourceSpans[0].scopeSpans[0].spans is not a list'],
        [{ resourceSpans: [{ scopeSpans: [{ spans: [span, null] }] }] }, 'resourceSpans[0].scopeSpans[0].spans entry 1 is not an object'],
      ];
      for (const [i, [body, why]] of bad.entries()) {
        const r = await send(`bad-containers-${i}`, body);
        expect([why, r.status, r.body.code, r.body.message]).toEqual([why, 400, 3, expect.stringContaining(why)]);
        expect(await spansOf(`bad-containers-${i}`)).toBeUndefined();
      }
      // Left out or null, a container holds nothing: an empty export, answered as one.
      for (const body of [{}, { resourceSpans: null }, { resourceSpans: [{ scopeSpans: null }] }, { resourceSpans: [{ scopeSpans: [{}] }] }])
        expect((await send('empty-containers', body)).status).toBe(200);
    });

    it('reads a status code by its name as protobuf JSON writes it, and refuses a status or a time it cannot read with 400, where they were read as unset', async () => {
      const named = await send('status-by-name', export1({}, { status: { code: 'STATUS_CODE_ERROR', message: 'boom' } }));
      expect(named.status).toBe(200);
      expect((await spansOf('status-by-name'))![0]).toMatchObject({ status_code: 500, error_message: 'boom' });
      const bad: ReadonlyArray<readonly [Record<string, unknown>, string]> = [
        [{ status: { code: 'ERROR' } }, "span 0's status code is not a status code"],
        [{ status: [] }, 'span 0 has a status that is not an object'],
        [{ status: 'x' }, 'span 0 has a status that is not an object'],
        [{ startTimeUnixNano: '-1' }, "span 0's startTimeUnixNano is not a whole number of nanoseconds"],
        [{ startTimeUnixNano: -5 }, "span 0's startTimeUnixNano is not a whole number of nanoseconds"],
        [{ startTimeUnixNano: '1.5e18' }, "span 0's startTimeUnixNano is not a whole number of nanoseconds"],
        [{ endTimeUnixNano: ' 1700000001000000000' }, "span 0's endTimeUnixNano is not a whole number of nanoseconds"],
        [{ endTimeUnixNano: '0x10' }, "span 0's endTimeUnixNano is not a whole number of nanoseconds"],
      ];
      for (const [i, [span, why]] of bad.entries()) {
        const r = await send(`bad-status-time-${i}`, export1({}, span));
        expect([why, r.status, r.body.code, r.body.message]).toEqual([why, 400, 3, expect.stringContaining(why)]);
        expect(await spansOf(`bad-status-time-${i}`)).toBeUndefined();
      }
      // A time sent as a whole number (not the string OTLP/JSON asks for) is still read.
      expect((await send('time-as-number', export1({}, { startTimeUnixNano: 1700000000000000000, endTimeUnixNano: 1700000001000000000 }))).status).toBe(200);
      expect((await spansOf('time-as-number'))![0]).toMatchObject({ created_at: '2023-11-14T22:13:20.000Z', metrics: { duration_ns: 1_000_000_000 } });
    });

    it('keeps an int64 attribute past 2^53 exactly, as its digits, not rounded to the nearest double', async () => {
      const int = (key: string, intValue: string | number) => ({ key, value: { intValue } });
      const r = await send('int64', export1({}, { attributes: [int('gen_ai.operation.name', 0), int('tool_call.id', '12345678901234567891'), int('gen_ai.usage.input_tokens', '-9007199254740993'), int('gen_ai.usage.output_tokens', '42')] }));
      expect(r.status).toBe(200);
      const [span] = (await spansOf('int64'))!;
      expect(span).toMatchObject({ tool_call_id: '12345678901234567891', metrics: { num_output_tokens: 42 } });
      expect(span!['metrics']).not.toHaveProperty('num_input_tokens');
    });

    it('refuses names and values that cannot be read as text or numbers with 400, not 500', async () => {
      // Parsed JSON can hold an object whose own toString and valueOf are no functions: no text at all.
      const noText = { toString: 1, valueOf: 1 };
      const hostile = [
        { name: noText },
        { status: { code: 2, message: noText } },
        { status: { code: noText } },
        { attributes: [{ key: 'input.value', value: { stringValue: noText } }] },
        { attributes: [{ key: 'gen_ai.request.temperature', value: { doubleValue: noText } }] },
        { attributes: [{ key: 'x', value: { bytesValue: noText } }] },
        { events: [{ name: 'exception', attributes: [{ key: 'exception.message', value: { stringValue: noText } }] }] },
      ];
      for (const [i, span] of hostile.entries()) {
        const r = await send(`no-text-${i}`, export1({}, span));
        expect([i, r.status, r.body.code]).toEqual([i, 400, 3]);
      }
      const scope = export1({});
      (scope.resourceSpans[0]!.scopeSpans[0] as Record<string, unknown>)['scope'] = { name: noText };
      expect((await send('no-text-scope', scope)).status).toBe(400);
      expect((await w.call('GET', '/healthcheck')).status).toBe(200);
    });

    it('refuses half a surrogate pair in a span\'s name, error message, model, finish reason or tool call id (stored as text, it would come back as U+FFFD) with 400 naming the span, creating no log stream; takes whole pairs, and half of one in an input', async () => {
      const cut = 'cut \ud83d in half';
      const attribute = (key: string) => ({ attributes: [{ key, value: { stringValue: cut } }] });
      const cases = [
        ['name', { name: cut }],
        ['error message', { status: { code: 2, message: cut } }],
        ['model', attribute('gen_ai.request.model')],
        ['finish reason', attribute('ai.response.finishReason')],
        ['tool call id', attribute('gen_ai.tool.call.id')],
      ] as const;
      for (const [field, span] of cases) {
        const body = export1({}, span);
        const { traceId: tid } = body.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
        const r = await send('cut-pair', body);
        expect([r.status, r.body]).toEqual([400, { code: 3, message: `body: Value error, span b7ad6b7169203331 of trace ${tid}: its ${field} holds half of a surrogate pair, which cannot be stored as text` }]);
      }
      expect(await spansOf('cut-pair')).toBeUndefined();
      expect((await send('whole-pair', export1({ 'input.value': cut }, { name: 'whole 😀', status: { code: 2, message: 'failed 😀' } }))).status).toBe(200);
      expect((await spansOf('whole-pair'))!.map((sp) => [sp['name'], sp['error_message'], sp['input']])).toEqual([['whole 😀', 'failed 😀', cut]]);
    });

    it('refuses timestamps beyond a fixed64, a log stream name a log stream may not have, and too many spans, creating no log stream', async () => {
      const late = await send('late-times', export1({}, { startTimeUnixNano: '99999999999999999999999', endTimeUnixNano: '99999999999999999999999' }));
      expect(late.status).toBe(400);
      expect(await spansOf('late-times')).toBeUndefined();
      const longName = await send('x'.repeat(300), export1({}));
      expect(longName.status).toBe(400);
      expect(longName.body).toEqual({ code: 3, message: 'header.logstream: String should have at most 255 characters' });
      expect((await send('line\nbreak'.replace('\n', '\t'), export1({}))).status).toBe(400);
      const tooMany = export1({});
      const one = tooMany.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
      tooMany.resourceSpans[0]!.scopeSpans[0]!.spans = Array.from({ length: 10_001 }, (_, i) => ({ ...one, spanId: (i + 1).toString(16).padStart(16, '0') }));
      expect((await send('too-many', tooMany)).status).toBe(400);
      expect(await spansOf('too-many')).toBeUndefined();
    });
  });

  it('counts the exports handed to an offload worker in /metrics', async () => {
    const metrics = (await w.call('GET', '/metrics')).text;
    const offloaded = Number(/^tracelight_http_offloaded_requests_total\{route="\/v1\/traces"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    if (env['TRACELIGHT_OFFLOAD_WORKERS'] === '0') expect(offloaded).toBe(0);
    else expect(offloaded).toBeGreaterThan(0);
  });
});
