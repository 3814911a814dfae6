// Emits spans with the official OpenTelemetry SDK and OTLP exporter, from its own process (the
// exporters load their transport with a dynamic import that Jest's VM refuses). Two runs to choose from:
// - agent: an agent span (OpenInference), an LLM call (GenAI conventions) and a failed tool call (Vercel AI SDK);
// - events: spans whose data is in their events: a failed call that recorded its exception, a call that
//   recorded one and went on, and an LLM call whose prompt and completion are events (GenAI conventions up to 1.27).
// Usage: node otel-emitter.cjs <agent|events> <proto|json> <url> <headers as JSON> <tag> [gzip]   → prints the trace id
const { ROOT_CONTEXT, SpanStatusCode, trace } = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');

const [run, encoding, url, headersJson, tag, compression] = process.argv.slice(2);
const { OTLPTraceExporter } =
  encoding === 'proto' ? require('@opentelemetry/exporter-trace-otlp-proto') : require('@opentelemetry/exporter-trace-otlp-http');

/** Each run's spans under a root span it returns, still open. */
const RUNS = {
  agent: (tracer) => {
    const root = tracer.startSpan(`agent-${tag}`, {
      attributes: { 'openinference.span.kind': 'AGENT', 'input.value': 'Plan a trip to Paris ✓', 'output.value': 'Booked.' },
    });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    tracer
      .startSpan('chat gpt-4o-mini', {
        attributes: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.request.temperature': 0.3,
          'gen_ai.usage.input_tokens': 42,
          'gen_ai.usage.output_tokens': 7,
          'gen_ai.response.finish_reasons': ['tool_calls'],
          'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You plan trips.' }]),
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Plan a trip to Paris' }] }]),
          'gen_ai.output.messages': JSON.stringify([
            { role: 'assistant', parts: [{ type: 'tool_call', id: `call-${tag}`, name: 'book_hotel', arguments: { city: 'Paris' } }], finish_reason: 'tool_call' },
          ]),
          'gen_ai.tool.definitions': JSON.stringify([{ type: 'function', name: 'book_hotel', parameters: { type: 'object', properties: { city: { type: 'string' } } } }]),
        },
      }, ctx)
      .end();
    const tool = tracer.startSpan('ai.toolCall', {
      attributes: { 'ai.operationId': 'ai.toolCall', 'ai.toolCall.id': `call-${tag}`, 'ai.toolCall.name': 'book_hotel', 'ai.toolCall.args': '{"city":"Paris"}', 'ai.toolCall.result': '"ok"' },
    }, ctx);
    tool.setStatus({ code: SpanStatusCode.ERROR, message: 'hotel full' });
    tool.end();
    return root;
  },
  events: (tracer) => {
    const root = tracer.startSpan(`events-${tag}`);
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    const failed = tracer.startSpan('failed', {}, ctx);
    failed.recordException(new Error('boom'));
    failed.setStatus({ code: SpanStatusCode.ERROR });
    failed.end();
    const recovered = tracer.startSpan('recovered', {}, ctx);
    recovered.recordException(new TypeError('flaky'));
    recovered.end();
    const chat = tracer.startSpan('chat', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai' } }, ctx);
    chat.addEvent('log', { note: 'an event the mapping does not read' });
    chat.addEvent('gen_ai.content.prompt', { 'gen_ai.prompt': JSON.stringify([{ role: 'user', content: 'Plan a trip to Paris' }]) });
    chat.addEvent('gen_ai.content.completion', { 'gen_ai.completion': JSON.stringify([{ role: 'assistant', content: 'Booked.' }]) });
    chat.end();
    return root;
  },
};

(async () => {
  const exporter = new OTLPTraceExporter({ url, headers: JSON.parse(headersJson), ...(compression === 'gzip' ? { compression: 'gzip' } : {}) });
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const root = RUNS[run](provider.getTracer('tracelight-e2e', '1.0.0'));
  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  process.stdout.write(root.spanContext().traceId);
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
