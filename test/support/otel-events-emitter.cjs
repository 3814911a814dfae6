// Emits spans whose data is in their events, with the official OpenTelemetry SDK and OTLP exporter,
// from its own process (the exporters load their transport with a dynamic import that Jest's VM refuses):
// a failed tool call that recorded its exception, a call that recorded one and went on, and an LLM call
// whose prompt and completion are events (GenAI semantic conventions up to 1.27).
// Usage: node otel-events-emitter.cjs <proto|json> <url> <headers as JSON> <tag>   → prints the trace id
const { ROOT_CONTEXT, SpanStatusCode, trace } = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor } = require('@opentelemetry/sdk-trace-base');

const [encoding, url, headersJson, tag] = process.argv.slice(2);
const { OTLPTraceExporter } =
  encoding === 'proto' ? require('@opentelemetry/exporter-trace-otlp-proto') : require('@opentelemetry/exporter-trace-otlp-http');

(async () => {
  const exporter = new OTLPTraceExporter({ url, headers: JSON.parse(headersJson) });
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracer = provider.getTracer('tracelight-e2e', '1.0.0');
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

  root.end();
  await provider.forceFlush();
  await provider.shutdown();
  process.stdout.write(root.spanContext().traceId);
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
