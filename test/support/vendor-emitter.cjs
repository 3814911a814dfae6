// Sends traces to Tracelight the way other vendors' own set-ups do, unchanged, from a process of its own
// (their exporters load their transport with a dynamic import that Jest's VM refuses):
// - phoenix: Phoenix's register({url, apiKey, projectName}) with OpenInference's OpenAI instrumentation,
//   and the `openai` client calling an OpenAI-compatible stub: a call that answers with a tool call, the
//   call that hands the tool's result back, and a streamed call;
// - langfuse: Langfuse's LangfuseSpanProcessor({publicKey, secretKey, baseUrl}) and its tracing API: a
//   trace with a generation, a tool call that fails (level ERROR) and an event.
// Usage: node vendor-emitter.cjs <phoenix|langfuse> <JSON options>   → prints a JSON summary (trace ids)
const [run, optionsJson] = process.argv.slice(2);
const options = JSON.parse(optionsJson);

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

const RUNS = {
  phoenix: async ({ serverUrl, apiKey, projectName, openAiUrl }) => {
    const { register } = require('@arizeai/phoenix-otel');
    const { OpenAIInstrumentation } = require('@arizeai/openinference-instrumentation-openai');
    const OpenAI = require('openai');
    // As Phoenix's documentation has it, with Tracelight's address and API key in place of Phoenix's.
    const provider = register({ url: serverUrl, apiKey, projectName, batch: false });
    // The module is loaded already (by require, above): it is instrumented by hand, as OpenInference says to then.
    new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(OpenAI);
    const client = new OpenAI({ apiKey: 'sk-stub', baseURL: openAiUrl });
    const messages = [
      { role: 'system', content: 'You answer questions about the weather.' },
      { role: 'user', content: 'Weather in Paris?' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-4o-mini', temperature: 0.2, messages, tools: [WEATHER_TOOL] });
    const asked = first.choices[0].message;
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [...messages, asked, { role: 'tool', tool_call_id: asked.tool_calls[0].id, content: '{"sky":"sunny"}' }],
      tools: [WEATHER_TOOL],
    });
    const stream = await client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'And tomorrow?' }] });
    for await (const _chunk of stream);
    await provider.forceFlush();
    await provider.shutdown();
    return {};
  },
  langfuse: async ({ serverUrl, apiKey, projectName }) => {
    const { NodeTracerProvider } = require('@opentelemetry/sdk-trace-node');
    const { LangfuseSpanProcessor } = require('@langfuse/otel');
    const { propagateAttributes, startActiveObservation, startObservation } = require('@langfuse/tracing');
    // As Langfuse's documentation has it: the public key names the Tracelight project, the secret key is a Tracelight API key.
    const processor = new LangfuseSpanProcessor({ publicKey: projectName, secretKey: apiKey, baseUrl: serverUrl, environment: 'staging', release: 'v1.2', exportMode: 'immediate' });
    const provider = new NodeTracerProvider({ spanProcessors: [processor] });
    provider.register();
    const traceId = await startActiveObservation('checkout', async (root) => {
      root.update({ input: { cart: ['book'] }, metadata: { region: 'eu' } });
      root.setTraceIO({ input: { cart: ['book'] }, output: 'declined' });
      await propagateAttributes({ traceName: 'checkout-flow', tags: ['prod', 'checkout'], userId: 'user-7' }, async () => {
        const generation = startObservation(
          'plan-purchase',
          {
            model: 'gpt-4o',
            modelParameters: { temperature: 0.4, max_tokens: 200 },
            input: [
              { role: 'system', content: 'You buy books.' },
              { role: 'user', content: 'Buy the book' },
            ],
          },
          { asType: 'generation' },
        );
        generation.update({ output: { role: 'assistant', content: 'Charging the card.' }, usageDetails: { input: 20, output: 5, total: 25 } }).end();
        const tool = startObservation('charge_card', { input: { amount: 12 } }, { asType: 'tool' });
        tool.update({ output: { ok: false }, level: 'ERROR', statusMessage: 'card declined' }).end();
        startObservation('retry-scheduled', { input: 'in 5 minutes' }, { asType: 'event' }).end();
      });
      root.update({ output: 'declined' });
      return root.traceId;
    });
    await processor.forceFlush();
    await provider.shutdown();
    return { traceId };
  },
};

RUNS[run](options)
  .then((summary) => process.stdout.write(JSON.stringify(summary)))
  .catch((e) => {
    process.stderr.write(String(e && e.stack ? e.stack : e));
    process.exit(1);
  });
