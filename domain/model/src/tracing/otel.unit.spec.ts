import * as E from 'fp-ts/Either';
import type { ProjectId, RunId } from '../shared/ids';
import { replacesStoredRecord } from './log-record';
import { MAX_EXCEPTION_METADATA, MAX_STACKTRACE_METADATA, type OtelAttributes, type OtelEvent, type OtelSpan, distinctOtelRecordIds, otelRootKey, otelSpanRecordId, otelToRecords, otelTraceRecordId, storableOtelText } from './otel';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const span = (spanId: string, parent: string | null, attributes: OtelAttributes, name = 'op'): OtelSpan => ({
  traceId: TRACE,
  spanId,
  parentSpanId: parent,
  name,
  startTimeUnixNano: 1_700_000_000_000_000_000n,
  endTimeUnixNano: 1_700_000_000_250_000_000n,
  attributes,
  events: [],
  status: { code: 0, message: '' },
  resource: { 'service.name': 'shop' },
  scope: { name: 'lib', version: '1' },
});
const ctx = { projectId: 'p' as ProjectId, runId: 'r' as RunId, now: new Date(0) };

describe('OpenTelemetry → records', () => {
  it('derives record ids from OTel ids, so a child sent before its parent already links to it', () => {
    const [child] = otelToRecords([span('00f067aa0ba902b7', 'aaaaaaaaaaaaaaaa', {})], ctx);
    expect(child).toMatchObject({ id: otelSpanRecordId(TRACE, '00f067aa0ba902b7'), parentId: otelSpanRecordId(TRACE, 'aaaaaaaaaaaaaaaa'), traceId: otelTraceRecordId(TRACE) });
    const later = otelToRecords([span('aaaaaaaaaaaaaaaa', null, {})], ctx);
    expect(later.map((r) => r.id)).toEqual([otelTraceRecordId(TRACE), otelSpanRecordId(TRACE, 'aaaaaaaaaaaaaaaa')]);
    expect(later[1]!.parentId).toBe(otelTraceRecordId(TRACE));
  });

  it('gives a root span whose id is its trace id\'s second half (Zipkin/B3) an id of its own, and keeps every other span\'s', () => {
    const b3 = '00000000000000001234567890abcdef';
    const inB3 = (spanId: string, parent: string | null): OtelSpan => ({ ...span(spanId, parent, {}), traceId: b3 });
    const records = otelToRecords([inB3('1234567890abcdef', null), inB3('aaaaaaaaaaaaaaaa', '1234567890abcdef')], ctx);
    expect(records.map((r) => [r.type, r.id, r.parentId])).toEqual([
      ['trace', '00000000-0000-0000-1234-567890abcdef', null],
      ['workflow', 'ffffffff-ffff-ffff-1234-567890abcdef', '00000000-0000-0000-1234-567890abcdef'],
      ['workflow', '00000000-0000-0000-aaaa-aaaaaaaaaaaa', 'ffffffff-ffff-ffff-1234-567890abcdef'],
    ]);
    expect(records[1]!.hasChildren).toBe(true);
    // The same with 128-bit trace ids: the first half, every bit flipped; any other span id is as it was.
    expect(otelSpanRecordId('0af7651916cd43dd8448eb211c80319c', '8448eb211c80319c')).toBe('f5089ae6-e932-bc22-8448-eb211c80319c');
    expect(otelSpanRecordId('0af7651916cd43dd8448eb211c80319c', '8448eb211c80319d')).toBe('0af76519-16cd-43dd-8448-eb211c80319d');
    expect(distinctOtelRecordIds([inB3('1234567890abcdef', null), inB3('aaaaaaaaaaaaaaaa', '1234567890abcdef')])).toEqual(E.right(expect.any(Array)));
  });

  it('refuses spans two of whose records would have one id: a span sent twice, derived ids that meet', () => {
    const message = (spans: ReadonlyArray<OtelSpan>) => {
      const checked = distinctOtelRecordIds(spans);
      return E.isLeft(checked) && checked.left._tag === 'Invalid' ? checked.left.message : undefined;
    };
    expect(message([span('1111111111111111', null, {}), span('2222222222222222', '1111111111111111', {})])).toBeUndefined();
    expect(message([span('1111111111111111', null, {}), span('2222222222222222', '1111111111111111', {}), span('2222222222222222', '1111111111111111', {})])).toBe(
      `span 2222222222222222 of trace ${TRACE} is in this export twice`,
    );
    expect(message([span('1111111111111111', null, {}), span('1111111111111111', null, {})])).toBe(`span 1111111111111111 of trace ${TRACE} is in this export twice`);
    // Two root spans of a trace: the trace's record is made from one of them.
    expect(message([span('1111111111111111', null, {}), span('3333333333333333', null, {})])).toBeUndefined();
    // Derived ids that meet (contrived: a trace whose id is a B3 trace's with the first half's bits flipped).
    const b3Root = { ...span('1234567890abcdef', null, {}), traceId: '00000000000000001234567890abcdef' };
    const flipped = { ...span('5555555555555555', null, {}), traceId: 'ffffffffffffffff1234567890abcdef' };
    expect(message([b3Root, flipped])).toBe(
      'span 1234567890abcdef of trace 00000000000000001234567890abcdef and the trace record of trace ffffffffffffffff1234567890abcdef (its root span 5555555555555555) would both be stored as record ffffffff-ffff-ffff-1234-567890abcdef',
    );
  });

  it('makes a trace\'s record of the root span that started first, whatever the order or batching of its roots, and keeps every root as a span of it', () => {
    const at = (spanId: string, startSeconds: number, name: string): OtelSpan => ({ ...span(spanId, null, {}, name), startTimeUnixNano: BigInt(1_700_000_000 + startSeconds) * 1_000_000_000n });
    const request = at('2222222222222222', 0, 'request');
    const worker = at('1111111111111111', 5, 'worker');
    const child = span('3333333333333333', '1111111111111111', {}, 'child');
    const trace = otelTraceRecordId(TRACE);
    const shapes = (spans: ReadonlyArray<OtelSpan>) => otelToRecords(spans, ctx).map((r) => [r.type, r.name, r.id, r.parentId, r.otelRootKey]);
    const requestKey = '01700000000000000000/2222222222222222';
    const workerKey = '01700000005000000000/1111111111111111';
    expect(shapes([worker, child, request])).toEqual([
      ['workflow', 'worker', otelSpanRecordId(TRACE, '1111111111111111'), trace, undefined],
      ['workflow', 'child', otelSpanRecordId(TRACE, '3333333333333333'), otelSpanRecordId(TRACE, '1111111111111111'), undefined],
      ['trace', 'request', trace, null, requestKey],
      ['workflow', 'request', otelSpanRecordId(TRACE, '2222222222222222'), trace, undefined],
    ]);
    // Alone, each root makes the trace's record, marked with its key: storage keeps the one whose key orders first.
    expect(shapes([worker])[0]).toEqual(['trace', 'worker', trace, null, workerKey]);
    expect(workerKey > requestKey).toBe(true);
    // Same start: the lower span id. No start (OTLP's 0): after every root that has one.
    expect(otelRootKey(at('2222222222222222', 0, 'x')) > otelRootKey(at('1111111111111111', 0, 'x'))).toBe(true);
    const noStart = { ...at('0000000000000001', 0, 'x'), startTimeUnixNano: 0n };
    expect(otelRootKey(noStart)).toBe('unset/0000000000000001');
    expect(otelRootKey(noStart) > otelRootKey({ ...worker, startTimeUnixNano: (1n << 64n) - 1n })).toBe(true);
    expect(shapes([noStart, worker]).filter(([type]) => type === 'trace')).toEqual([['trace', 'worker', trace, null, workerKey]]);
  });

  it('replaces a stored record with the one sent again, but a trace\'s record only with one of a root that started no later', () => {
    expect(replacesStoredRecord({}, null)).toBe(true);
    expect(replacesStoredRecord({}, 'b')).toBe(true);
    expect(replacesStoredRecord({ otelRootKey: 'b' }, undefined)).toBe(true);
    expect(replacesStoredRecord({ otelRootKey: 'b' }, null)).toBe(true);
    expect(replacesStoredRecord({ otelRootKey: 'b' }, 'b')).toBe(true);
    expect(replacesStoredRecord({ otelRootKey: 'a' }, 'b')).toBe(true);
    expect(replacesStoredRecord({ otelRootKey: 'c' }, 'b')).toBe(false);
  });

  it('refuses a span whose name or error message holds half of a surrogate pair, naming it, and takes whole pairs', () => {
    const refusal = (s: OtelSpan) => {
      const checked = storableOtelText([span('1111111111111111', null, {}), s]);
      return E.isLeft(checked) && checked.left._tag === 'Invalid' ? checked.left.message : undefined;
    };
    const cut = 'cut \ud83d in half';
    expect(refusal(span('2222222222222222', null, {}, cut))).toBe(`span 2222222222222222 of trace ${TRACE}: its name holds half of a surrogate pair, which cannot be stored as text`);
    expect(refusal(span('2222222222222222', null, { 'gen_ai.tool.name': cut }))).toContain('its name holds half');
    expect(refusal({ ...span('2222222222222222', null, {}), status: { code: 2, message: cut } })).toContain('its error message holds half');
    // Not stored as the error message when the span did not fail, and kept as JSON in an input: taken.
    expect(refusal({ ...span('2222222222222222', null, { 'input.value': cut }), status: { code: 1, message: cut } })).toBeUndefined();
    expect(refusal(span('2222222222222222', null, {}, 'whole 😀'))).toBeUndefined();
  });

  it('refuses a span whose model, finish reason or tool call id (columns filters compare) holds half of a surrogate pair, naming it', () => {
    const refusal = (attributes: OtelAttributes) => {
      const checked = storableOtelText([span('2222222222222222', null, attributes)]);
      return E.isLeft(checked) && checked.left._tag === 'Invalid' ? checked.left.message : undefined;
    };
    const cut = 'cut \udfff in half';
    expect(refusal({ 'gen_ai.request.model': cut })).toBe(`span 2222222222222222 of trace ${TRACE}: its model holds half of a surrogate pair, which cannot be stored as text`);
    expect(refusal({ 'gen_ai.response.finish_reasons': [cut] })).toContain('its finish reason holds half');
    expect(refusal({ 'ai.response.finishReason': cut })).toContain('its finish reason holds half');
    expect(refusal({ 'gen_ai.tool.call.id': cut })).toContain('its tool call id holds half');
    // Only what a record stores: a model read from a source of lower priority is not.
    expect(refusal({ 'llm.model_name': 'gpt-4o', 'gen_ai.request.model': cut })).toBeUndefined();
    expect(refusal({ 'gen_ai.request.model': 'gpt 😀', 'session.id': cut })).toBeUndefined();
  });

  it('takes a token count only as a whole number, not negative, else reads the next source', () => {
    const metricsOf = (attributes: OtelAttributes) => otelToRecords([span('1111111111111111', null, { 'gen_ai.operation.name': 'chat', ...attributes })], ctx)[1]!.metrics;
    expect(metricsOf({ 'gen_ai.usage.input_tokens': -5, 'gen_ai.usage.output_tokens': 1.5 })).not.toHaveProperty('num_input_tokens');
    expect(metricsOf({ 'gen_ai.usage.input_tokens': -5, 'gen_ai.usage.output_tokens': 1.5 })).not.toHaveProperty('num_output_tokens');
    expect(metricsOf({ 'llm.token_count.prompt': -1, 'gen_ai.usage.input_tokens': 4, 'gen_ai.usage.output_tokens': '0' })).toMatchObject({ num_input_tokens: 4, num_output_tokens: 0, num_total_tokens: 4 });
    // A total sent is kept as sent (cached or reasoning tokens may count beside the two), even alone; else it is their sum.
    expect(metricsOf({ 'llm.token_count.prompt': 10, 'llm.token_count.completion': 5, 'llm.token_count.total': 40 })).toMatchObject({ num_total_tokens: 40 });
    expect(metricsOf({ 'llm.token_count.total': 33 })).toEqual(expect.objectContaining({ num_total_tokens: 33 }));
    expect(metricsOf({ 'llm.token_count.total': 33 })).not.toHaveProperty('num_input_tokens');
    expect(metricsOf({ 'ai.usage.totalTokens': 12 })).toMatchObject({ num_total_tokens: 12 });
    expect(metricsOf({ 'llm.token_count.total': -1, 'llm.token_count.prompt': 2, 'llm.token_count.completion': 3 })).toMatchObject({ num_total_tokens: 5 });
    // Past 2^53 - 1 a count would not be held exactly (the decoder keeps such an int64 as its digits).
    expect(metricsOf({ 'llm.token_count.prompt': '9007199254740993', 'gen_ai.usage.input_tokens': 9007199254740991 })).toMatchObject({ num_input_tokens: 9007199254740991 });
  });

  it('reads OpenInference first', () => {
    const [, r] = otelToRecords([span('1111111111111111', null, {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o',
      'gen_ai.request.model': 'ignored-lower-priority',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'hi',
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': 'hello',
      'llm.token_count.prompt': 5,
      'llm.token_count.completion': 2,
      'llm.invocation_parameters': '{"temperature": 0.7}',
      'session.id': 'not-a-uuid',
    })], ctx);
    expect(r).toMatchObject({
      type: 'llm',
      input: [{ role: 'user', content: 'hi' }],
      output: [{ role: 'assistant', content: 'hello' }],
      attributes: { model: 'gpt-4o', temperature: 0.7 },
      metrics: { duration_ns: 250_000_000, num_input_tokens: 5, num_output_tokens: 2, num_total_tokens: 7 },
      sessionId: null,
      userMetadata: { 'session.id': 'not-a-uuid', 'service.name': 'shop', 'otel.scope.name': 'lib' },
      createdAt: new Date(1_700_000_000_000),
    });
  });

  it('maps GenAI operations and the Vercel AI SDK, and defaults to workflow', () => {
    const records = otelToRecords([
      span('1111111111111111', null, {}),
      span('2222222222222222', '1111111111111111', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.id': 'c1' }),
      span('3333333333333333', '1111111111111111', { 'ai.operationId': 'ai.streamText.doStream', 'ai.model.id': 'claude', 'ai.usage.promptTokens': 3, 'ai.response.text': 'yo' }),
      span('4444444444444444', '1111111111111111', { 'ai.operationId': 'ai.streamText' }),
      span('5555555555555555', '1111111111111111', { 'gen_ai.operation.name': 'invoke_agent' }),
    ], ctx);
    expect(records.slice(1).map((r) => [r.type, r.name])).toEqual([
      ['workflow', 'op'],
      ['tool', 'search'],
      ['llm', 'op'],
      ['workflow', 'op'],
      ['agent', 'op'],
    ]);
    expect(records[2]!.attributes).toEqual({ tool_call_id: 'c1' });
    expect(records[3]).toMatchObject({ attributes: { model: 'claude' }, output: 'yo', metrics: { num_input_tokens: 3 } });
    expect(records[1]!.hasChildren).toBe(true);
  });

  describe('span events', () => {
    const withEvents = (events: ReadonlyArray<OtelEvent>, status = { code: 0, message: '' }, attributes: OtelAttributes = {}): OtelSpan => ({
      ...span('1111111111111111', 'aaaaaaaaaaaaaaaa', attributes),
      events,
      status,
    });
    const exception = (attributes: OtelAttributes): OtelEvent => ({ name: 'exception', attributes: { 'exception.stacktrace': 'Error: at f (a.js:1:1)', ...attributes } });
    const ERROR = { code: 2, message: '' };
    const mapped = (s: OtelSpan) => otelToRecords([s], ctx)[0]!;

    it('names the error of a failed span by its status message, else by its first exception event, else "error"', () => {
      const boom = exception({ 'exception.type': 'TypeError', 'exception.message': 'boom' });
      const later = exception({ 'exception.type': 'RangeError', 'exception.message': 'later' });
      expect(mapped(withEvents([boom], { code: 2, message: 'hotel full' })).errorMessage).toBe('hotel full');
      expect(mapped(withEvents([{ name: 'retry', attributes: {} }, boom, later], ERROR))).toMatchObject({ statusCode: 500, errorMessage: 'TypeError: boom' });
      expect(mapped(withEvents([exception({ 'exception.type': 'TimeoutError' })], ERROR)).errorMessage).toBe('TimeoutError');
      expect(mapped(withEvents([exception({ 'exception.message': 'boom' })], ERROR)).errorMessage).toBe('boom');
      expect(mapped(withEvents([exception({ 'exception.type': '', 'exception.message': 'boom' })], ERROR)).errorMessage).toBe('boom');
      expect(mapped(withEvents([exception({})], ERROR)).errorMessage).toBe('error');
      expect(mapped(withEvents([], ERROR)).errorMessage).toBe('error');
    });

    it('keeps a span with an exception but no ERROR status not failed, and keeps its exception in user metadata, cut to length', () => {
      const r = mapped(withEvents([exception({ 'exception.type': 'ValueError', 'exception.message': 'retried', 'exception.escaped': false })]));
      expect(r).toMatchObject({ statusCode: null, errorMessage: null });
      expect(r.userMetadata).toEqual({
        'otel.scope.name': 'lib',
        'service.name': 'shop',
        'exception.type': 'ValueError',
        'exception.message': 'retried',
        'exception.stacktrace': 'Error: at f (a.js:1:1)',
      });
      expect(mapped(withEvents([exception({ 'exception.message': 'boom' })], { code: 2, message: 'hotel full' })).userMetadata).toMatchObject({ 'exception.message': 'boom' });

      const long = mapped(withEvents([exception({ 'exception.type': 'E', 'exception.message': 'x'.repeat(MAX_EXCEPTION_METADATA * 5) })], ERROR));
      expect(long.userMetadata['exception.message']).toBe(`${'x'.repeat(MAX_EXCEPTION_METADATA)}…`);
      expect(long.errorMessage).toBe(`E: ${'x'.repeat(MAX_EXCEPTION_METADATA * 5)}`);
      // A character outside the BMP astride the cut is left out whole, not halved.
      const astride = mapped(withEvents([exception({ 'exception.message': `${'x'.repeat(MAX_EXCEPTION_METADATA - 1)}😀tail` })]));
      expect(astride.userMetadata['exception.message']).toBe(`${'x'.repeat(MAX_EXCEPTION_METADATA - 1)}…`);
      // A stack trace keeps more: its first MAX_STACKTRACE_METADATA characters, the frames nearest the throw.
      const frames = Array.from({ length: 2_000 }, (_, i) => `    at f${i} (app.js:${i}:1)`).join('\n');
      const deep = mapped(withEvents([exception({ 'exception.stacktrace': `RangeError: too deep\n${frames}` })], ERROR));
      expect(deep.userMetadata['exception.stacktrace']).toBe(`${`RangeError: too deep\n${frames}`.slice(0, MAX_STACKTRACE_METADATA)}…`);
      expect(mapped(withEvents([exception({ 'exception.stacktrace': '' })])).userMetadata).not.toHaveProperty('exception.stacktrace');
    });

    it('takes input and output from the GenAI prompt and completion events when no attribute gives them, as JSON when they are', () => {
      const prompt = { name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': '[{"role":"user","content":"hi"}]' } };
      const completion = { name: 'gen_ai.content.completion', attributes: { 'gen_ai.completion': '[{"role":"assistant","content":"hello"}]' } };
      expect(mapped(withEvents([prompt, completion]))).toMatchObject({
        input: [{ role: 'user', content: 'hi' }],
        output: [{ role: 'assistant', content: 'hello' }],
      });
      const text = mapped(withEvents([{ name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'just text' } }]));
      expect([text.input, text.output]).toEqual(['just text', null]);
      const attributed = mapped(withEvents([prompt, completion], undefined, { 'gen_ai.input.messages': '[{"role":"user","content":"from attributes"}]', 'output.value': 'attribute output' }));
      expect([attributed.input, attributed.output]).toEqual([[{ role: 'user', content: 'from attributes' }], 'attribute output']);
      expect(mapped(withEvents([{ name: 'gen_ai.content.prompt', attributes: {} }, { name: 'log', attributes: { 'gen_ai.prompt': 'not a prompt event' } }])).input).toBe('');
    });
  });
});
