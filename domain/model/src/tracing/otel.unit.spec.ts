import * as E from 'fp-ts/Either';
import type { ProjectId, RunId } from '../shared/ids';
import { replacesStoredRecord } from './log-record';
import { MAX_EXCEPTION_METADATA, MAX_STACKTRACE_METADATA, type OtelAttributes, type OtelEvent, type OtelSpan, distinctOtelRecordIds, otelProjectName, otelRootKey, otelSpanRecordId, otelToRecords, otelTraceRecordId, storableOtelText } from './otel';

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
      output: { role: 'assistant', content: 'hello' },
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
    expect(records[3]).toMatchObject({ attributes: { model: 'claude' }, output: { role: 'assistant', content: 'yo' }, metrics: { num_input_tokens: 3 } });
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
        output: { role: 'assistant', content: 'hello' },
      });
      const text = mapped(withEvents([{ name: 'gen_ai.content.prompt', attributes: { 'gen_ai.prompt': 'just text' } }]));
      expect([text.input, text.output]).toEqual(['just text', null]);
      const attributed = mapped(withEvents([prompt, completion], undefined, { 'gen_ai.input.messages': '[{"role":"user","content":"from attributes"}]', 'output.value': 'attribute output' }));
      expect([attributed.input, attributed.output]).toEqual([[{ role: 'user', content: 'from attributes' }], 'attribute output']);
      expect(mapped(withEvents([{ name: 'gen_ai.content.prompt', attributes: {} }, { name: 'log', attributes: { 'gen_ai.prompt': 'not a prompt event' } }])).input).toBe('');
    });
  });

  describe('LLM messages, in the shape the origin\'s SDKs send', () => {
    const llm = (attributes: OtelAttributes) => otelToRecords([span('1111111111111111', 'aaaaaaaaaaaaaaaa', attributes)], ctx)[0]!;
    const request = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }] };

    it('builds OpenInference\'s messages, tool calls, content parts and tools, not its whole request and response (input.value, output.value)', () => {
      const r = llm({
        'openinference.span.kind': 'LLM',
        'input.value': JSON.stringify(request),
        'input.mime_type': 'application/json',
        'output.value': '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}',
        'output.mime_type': 'application/json',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Be brief.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.contents.0.message_content.type': 'text',
        'llm.input_messages.1.message.contents.0.message_content.text': 'Weather in ',
        'llm.input_messages.1.message.contents.1.message_content.type': 'text',
        'llm.input_messages.1.message.contents.1.message_content.text': 'Paris?',
        'llm.input_messages.1.message.contents.2.message_content.type': 'image',
        'llm.input_messages.1.message.contents.2.message_content.image.image.url': 'https://example.com/paris.png',
        'llm.input_messages.2.message.role': 'assistant',
        'llm.input_messages.2.message.tool_calls.0.tool_call.id': 'call_1',
        'llm.input_messages.2.message.tool_calls.0.tool_call.function.name': 'weather',
        'llm.input_messages.2.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris"}',
        // Indexes sort as numbers: the eleventh message comes after the third, not before it.
        'llm.input_messages.10.message.role': 'user',
        'llm.input_messages.10.message.content': 'And tomorrow?',
        'llm.input_messages.3.message.role': 'tool',
        'llm.input_messages.3.message.tool_call_id': 'call_1',
        'llm.input_messages.3.message.content': 'sunny',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.tool_calls.0.tool_call.id': 'call_2',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.name': 'weather',
        'llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments': '{"city":"Paris","day":"tomorrow"}',
        'llm.tools.0.tool.json_schema': '{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}}',
        'llm.tools.1.tool.json_schema': 'not json',
        'llm.finish_reason': 'tool_calls',
        'llm.model_name': 'gpt-4o-mini',
      });
      expect(r.input).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?{"type":"image_url","image_url":{"url":"https://example.com/paris.png"}}' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: 'sunny', tool_call_id: 'call_1' },
        { role: 'user', content: 'And tomorrow?' },
      ]);
      expect(r.output).toEqual({ role: 'assistant', content: '', tool_calls: [{ id: 'call_2', function: { name: 'weather', arguments: '{"city":"Paris","day":"tomorrow"}' } }] });
      expect(r.attributes).toEqual({
        model: 'gpt-4o-mini',
        finish_reason: 'tool_calls',
        tools: '[{"type":"function","function":{"name":"weather","parameters":{"type":"object"}}},"not json"]',
      });
    });

    it('keeps input.value and output.value where there are no messages (a chain, an agent), and answers several output messages as a list', () => {
      expect(llm({ 'openinference.span.kind': 'CHAIN', 'input.value': JSON.stringify(request), 'output.value': 'done' })).toMatchObject({ type: 'workflow', input: request, output: 'done' });
      const choices = llm({
        'llm.output_messages.0.message.content': 'one',
        'llm.output_messages.1.message.content': 'two',
        'llm.input_messages.0.message.content': 'a role left out is the user\'s',
      });
      expect([choices.input, choices.output]).toEqual([
        [{ role: 'user', content: 'a role left out is the user\'s' }],
        [{ role: 'assistant', content: 'one' }, { role: 'assistant', content: 'two' }],
      ]);
      // The legacy function call of OpenAI's API is a tool call without an id.
      expect(llm({ 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.function_call_name': 'f', 'llm.output_messages.0.message.function_call_arguments_json': '{}' }).output).toEqual({
        role: 'assistant',
        content: '',
        tool_calls: [{ function: { name: 'f', arguments: '{}' } }],
      });
    });

    it('builds the GenAI conventions 1.37 messages from their parts, the system instructions first, and their tool definitions in OpenAI\'s shape', () => {
      const r = llm({
        'gen_ai.operation.name': 'chat',
        'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be brief.' }]),
        'gen_ai.input.messages': JSON.stringify([
          { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }, { type: 'uri', modality: 'image', uri: 'https://example.com/p.png' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_1', name: 'weather', arguments: { city: 'Paris' } }] },
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_1', response: { sky: 'sunny' } }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'reasoning', content: 'easy' }, { type: 'text', content: 'Sunny.' }], finish_reason: 'stop' }]),
        'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'weather', description: 'Weather by city', parameters: { type: 'object' } }]),
      });
      expect(r.input).toEqual([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?{"type":"uri","modality":"image","uri":"https://example.com/p.png"}' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '{"sky":"sunny"}', tool_call_id: 'call_1' },
      ]);
      expect(r.output).toEqual({ role: 'assistant', content: '{"type":"reasoning","content":"easy"}Sunny.' });
      expect(r.attributes).toEqual({
        finish_reason: 'stop',
        tools: '[{"type":"function","function":{"name":"weather","description":"Weather by city","parameters":{"type":"object"}}}]',
      });
      // Structured (a list attribute, not its JSON text) reads the same; what is no list of messages is kept as sent.
      expect(llm({ 'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }] }).input).toEqual([{ role: 'user', content: 'hi' }]);
      expect(llm({ 'gen_ai.input.messages': '[{"role":"user","content":"no parts"}]' }).input).toEqual([{ role: 'user', content: 'no parts' }]);
      expect(llm({ 'gen_ai.input.messages': 'plain text' }).input).toBe('plain text');
      // gen_ai.response.finish_reasons, when sent, comes before the output message's.
      expect(llm({ 'gen_ai.response.finish_reasons': ['length'], 'gen_ai.output.messages': '[{"role":"assistant","parts":[],"finish_reason":"stop"}]' }).attributes.finish_reason).toBe('length');
    });

    it('builds OpenLLMetry\'s flattened prompt and completion, with their tool calls, finish reason and functions', () => {
      const r = llm({
        'gen_ai.system': 'openai',
        'gen_ai.prompt.0.role': 'user',
        'gen_ai.prompt.0.content': 'Weather in Paris?',
        'gen_ai.completion.0.role': 'assistant',
        'gen_ai.completion.0.finish_reason': 'tool_calls',
        'gen_ai.completion.0.tool_calls.0.id': 'call_1',
        'gen_ai.completion.0.tool_calls.0.name': 'weather',
        'gen_ai.completion.0.tool_calls.0.arguments': '{"city":"Paris"}',
        'llm.request.functions.0.name': 'weather',
        'llm.request.functions.0.description': 'Weather by city',
        'llm.request.functions.0.parameters': '{"type":"object"}',
      });
      expect(r).toMatchObject({
        type: 'llm',
        input: [{ role: 'user', content: 'Weather in Paris?' }],
        output: { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        attributes: { finish_reason: 'tool_calls', tools: '[{"type":"function","function":{"name":"weather","description":"Weather by city","parameters":{"type":"object"}}}]' },
      });
    });
  });

  describe('Langfuse observations (langfuse.observation.*, langfuse.trace.*)', () => {
    const observation = (attributes: OtelAttributes, parent: string | null = 'aaaaaaaaaaaaaaaa') => otelToRecords([span('1111111111111111', parent, attributes, 'obs')], ctx);

    it('makes a generation an llm span with its messages, model, parameters and usage', () => {
      const [r] = observation({
        'langfuse.observation.type': 'generation',
        'langfuse.observation.input': JSON.stringify([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hi' }] }]),
        'langfuse.observation.output': JSON.stringify({ role: 'assistant', content: 'Hello!' }),
        'langfuse.observation.model.name': 'gpt-4o',
        'langfuse.observation.model.parameters': JSON.stringify({ temperature: 0.2, max_tokens: 100 }),
        'langfuse.observation.usage_details': JSON.stringify({ input: 12, output: 3, total: 15 }),
        'langfuse.environment': 'staging',
        'langfuse.observation.metadata.team': 'search',
        'langfuse.observation.metadata.attempt': 2 as unknown as string,
      });
      expect(r).toMatchObject({
        type: 'llm',
        input: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }],
        output: { role: 'assistant', content: 'Hello!' },
        attributes: { model: 'gpt-4o', temperature: 0.2 },
        metrics: { num_input_tokens: 12, num_output_tokens: 3, num_total_tokens: 15 },
        statusCode: null,
        userMetadata: { 'langfuse.environment': 'staging', team: 'search', attempt: '2' },
      });
      // OpenAI's usage names read too.
      expect(observation({ 'langfuse.observation.type': 'generation', 'langfuse.observation.usage_details': '{"prompt_tokens":4,"completion_tokens":1}' })[0]!.metrics).toMatchObject({
        num_input_tokens: 4,
        num_output_tokens: 1,
        num_total_tokens: 5,
      });
    });

    it('keeps a span\'s, a tool\'s or an event\'s input and output as sent (text unquoted, objects as documents), and types each kind', () => {
      const typeOf = (type: string) => observation({ 'langfuse.observation.type': type })[0]!.type;
      expect(['span', 'event', 'chain', 'agent', 'tool', 'retriever', 'embedding', 'guardrail', 'evaluator', 'toString'].map(typeOf)).toEqual([
        'workflow', 'workflow', 'workflow', 'agent', 'tool', 'retriever', 'llm', 'control', 'workflow', 'workflow',
      ]);
      const [r] = observation({ 'langfuse.observation.type': 'tool', 'langfuse.observation.input': '{"city":"Paris"}', 'langfuse.observation.output': 'sunny' });
      expect([r!.input, r!.output]).toEqual([{ city: 'Paris' }, 'sunny']);
      // A generation's input that holds no messages is kept as sent.
      expect(observation({ 'langfuse.observation.type': 'generation', 'langfuse.observation.input': '{"prompt":"Hi"}' })[0]!.input).toEqual({ prompt: 'Hi' });
    });

    it('fails an observation of level ERROR with its status message, and keeps the level of one that did not fail', () => {
      expect(observation({ 'langfuse.observation.type': 'span', 'langfuse.observation.level': 'ERROR', 'langfuse.observation.status_message': 'rate limited' })[0]).toMatchObject({
        statusCode: 500,
        errorMessage: 'rate limited',
      });
      expect(observation({ 'langfuse.observation.level': 'ERROR' })[0]!.errorMessage).toBe('error');
      expect(observation({ 'langfuse.observation.level': 'WARNING', 'langfuse.observation.status_message': 'slow' })[0]).toMatchObject({
        statusCode: null,
        errorMessage: null,
        userMetadata: { 'langfuse.observation.level': 'WARNING', 'langfuse.observation.status_message': 'slow' },
      });
    });

    it('makes the trace\'s record of its langfuse.trace.* name, input and output, and tags and gives metadata to the records of the spans that carry them', () => {
      const [trace, root] = observation(
        {
          'langfuse.observation.type': 'span',
          'langfuse.observation.input': 'span input',
          'langfuse.trace.name': 'checkout',
          'langfuse.trace.input': '{"cart":3}',
          'langfuse.trace.output': 'paid',
          'langfuse.trace.tags': ['prod', 'checkout'],
          'langfuse.trace.metadata.region': 'eu',
          'user.id': 'u-42',
        },
        null,
      );
      expect(trace).toMatchObject({ type: 'trace', name: 'checkout', input: { cart: 3 }, output: 'paid', tags: ['prod', 'checkout'], userMetadata: { region: 'eu', 'user.id': 'u-42' } });
      expect(root).toMatchObject({ type: 'workflow', name: 'obs', input: 'span input', output: null, tags: ['prod', 'checkout'] });
    });
  });

  it('keeps OpenInference\'s tags and metadata, never letting a key named __proto__ become the metadata\'s prototype', () => {
    const [, r] = otelToRecords([span('1111111111111111', null, { 'tag.tags': ['a', 'b'], metadata: '{"__proto__":{"polluted":"yes"},"k":1}', 'user.id': 'u1' })], ctx);
    expect(r!.tags).toEqual(['a', 'b']);
    expect(r!.userMetadata).toMatchObject({ k: '1', 'user.id': 'u1' });
    expect(Object.getOwnPropertyDescriptor(r!.userMetadata, '__proto__')?.value).toBe('{"polluted":"yes"}');
    expect((r!.userMetadata as Record<string, unknown>)['polluted']).toBeUndefined();
    // A tag holding half of a surrogate pair is refused, as any text a filter compares.
    const refused = storableOtelText([span('1111111111111111', null, { 'tag.tags': ['ok', '\uD800'] })]);
    expect(E.isLeft(refused) && refused.left._tag === 'Invalid' && refused.left.message).toBe(`span 1111111111111111 of trace ${TRACE}: its tag holds half of a surrogate pair, which cannot be stored as text`);
  });

  it('reads a kind, type, operation or level sent as a list or a map (as OTLP\'s kvlist decodes, without a prototype) as none, without throwing', () => {
    const map = Object.create(null) as Record<string, string>;
    map['x'] = 'LLM';
    const odd = { 'openinference.span.kind': map, 'langfuse.observation.type': [map], 'gen_ai.operation.name': map, 'langfuse.observation.level': map };
    expect(otelToRecords([span('1111111111111111', 'aaaaaaaaaaaaaaaa', odd)], ctx).map((r) => [r.type, r.statusCode])).toEqual([['workflow', null]]);
  });

  it('stores a status UNSET as unset (null), OK as 200 and ERROR as 500, on the trace\'s record as on the span\'s', () => {
    const statuses = (code: number) => otelToRecords([{ ...span('1111111111111111', null, {}), status: { code, message: '' } }], ctx).map((r) => r.statusCode);
    expect([statuses(0), statuses(1), statuses(2), statuses(7)]).toEqual([[null, null], [200, 200], [500, 500], [null, null]]);
  });

  it('names a Vercel AI SDK span by its operation.name, so the provider call (doGenerate) stands apart from the call that made it', () => {
    const records = otelToRecords([
      span('1111111111111111', null, { 'ai.operationId': 'ai.generateText', 'operation.name': 'ai.generateText plan-trip', 'ai.telemetry.functionId': 'plan-trip', 'ai.telemetry.metadata.user': 'ann' }, 'ai.generateText'),
      span('2222222222222222', '1111111111111111', { 'ai.operationId': 'ai.generateText.doGenerate', 'operation.name': 'ai.generateText.doGenerate plan-trip', 'ai.telemetry.functionId': 'plan-trip' }, 'ai.generateText.doGenerate'),
      span('3333333333333333', '1111111111111111', { 'ai.operationId': 'ai.toolCall', 'operation.name': 'ai.toolCall plan-trip', 'ai.toolCall.name': 'book_hotel' }, 'ai.toolCall'),
      span('4444444444444444', '1111111111111111', { 'operation.name': 'not the AI SDK\'s' }, 'http'),
    ], ctx);
    expect(records.map((r) => [r.type, r.name])).toEqual([
      ['trace', 'ai.generateText'],
      ['workflow', 'ai.generateText plan-trip'],
      ['llm', 'ai.generateText.doGenerate plan-trip'],
      ['tool', 'book_hotel'],
      ['workflow', 'http'],
    ]);
    expect(records[1]!.userMetadata).toMatchObject({ 'ai.telemetry.functionId': 'plan-trip', user: 'ann' });
  });

  it('builds a Vercel AI SDK provider call\'s messages from its prompt (tool calls and results are parts) and its response, and keeps the outer call\'s text', () => {
    const [, call] = otelToRecords([span('1111111111111111', null, {
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.prompt.messages': JSON.stringify([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'weather', input: { city: 'Paris' } }] },
        { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'weather', output: { type: 'json', value: 'sunny' } }] },
      ]),
      'ai.prompt.tools': [JSON.stringify({ type: 'function', name: 'weather', inputSchema: { type: 'object' } })],
      'ai.response.text': 'Sunny.',
      'ai.response.toolCalls': JSON.stringify([{ toolCallId: 'c2', toolName: 'weather', input: '{"city":"Lyon"}' }]),
      'ai.response.finishReason': 'stop',
    })], ctx);
    expect(call).toMatchObject({
      type: 'llm',
      input: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'c1', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', content: '{"type":"json","value":"sunny"}', tool_call_id: 'c1' },
      ],
      output: { role: 'assistant', content: 'Sunny.', tool_calls: [{ id: 'c2', function: { name: 'weather', arguments: '{"city":"Lyon"}' } }] },
      attributes: { finish_reason: 'stop', tools: '[{"type":"function","function":{"name":"weather","inputSchema":{"type":"object"}}}]' },
    });
    const [, outer] = otelToRecords([span('1111111111111111', null, { 'ai.operationId': 'ai.generateText', 'ai.prompt': '{"prompt":"Weather?"}', 'ai.response.text': 'Sunny.' })], ctx);
    expect([outer!.input, outer!.output]).toEqual([{ prompt: 'Weather?' }, 'Sunny.']);
  });

  it('reads the project an export\'s resources name (openinference.project.name), and refuses two', () => {
    const inProject = (name: string | undefined): OtelSpan => ({ ...span('1111111111111111', null, {}), resource: name === undefined ? {} : { 'openinference.project.name': name } });
    expect(otelProjectName([])).toEqual(E.right(undefined));
    expect(otelProjectName([inProject(undefined), inProject('shop'), inProject('shop'), inProject('')])).toEqual(E.right('shop'));
    const two = otelProjectName([inProject('shop'), inProject('search')]);
    expect(E.isLeft(two) && two.left._tag === 'Invalid' && two.left.message).toMatch(/name two projects \(openinference.project.name "shop" and "search"\)/);
  });
});
