// The galileo SDK's simplest logging flow, exactly as a user writes it, in its own process.
// Env: GALILEO_API_KEY, GALILEO_API_URL (the server's base URL), PROJECT, and LOG_STREAM or EXPERIMENT_ID.
// Prints the session id and how many traces were flushed.
const { GalileoLogger } = require('galileo');

(async () => {
  const experimentId = process.env.EXPERIMENT_ID;
  const logger = new GalileoLogger(
    experimentId ? { projectName: process.env.PROJECT, experimentId } : { projectName: process.env.PROJECT, logStreamName: process.env.LOG_STREAM },
  );
  const sessionId = experimentId ? null : await logger.startSession({ name: 'sdk-session', externalId: 'conversation-7' });
  logger.startTrace({ input: 'Who wrote «Les Misérables»?', name: 'sdk-trace', metadata: { team: 'search' }, tags: ['sdk'] });
  logger.addLlmSpan({
    input: [{ role: 'user', content: 'Who wrote «Les Misérables»?' }],
    output: { role: 'assistant', content: 'Victor Hugo.' },
    model: 'gpt-4o-mini',
    temperature: 0.1,
    numInputTokens: 11,
    numOutputTokens: 4,
    durationNs: 1200000,
    name: 'llm-call',
  });
  logger.addToolSpan({ input: '{"query": "Les Misérables author"}', output: 'Victor Hugo', name: 'search-tool', toolCallId: 'call_42' });
  logger.conclude({ output: 'Victor Hugo.' });
  const flushed = await logger.flush();
  process.stdout.write(JSON.stringify({ sessionId, flushed: flushed.length }));
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
