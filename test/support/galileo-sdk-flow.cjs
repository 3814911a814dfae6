// The galileo SDK's flows, exactly as a user writes them, in a process of their own.
// Env: GALILEO_API_KEY, GALILEO_API_URL (the server's base URL), PROJECT, and:
//   MODE unset or `batch`: LOG_STREAM or EXPERIMENT_ID; a session, a trace flushed in one batch. Prints
//     the session id and how many traces were flushed.
//   MODE=streaming: LOG_STREAM; a trace with a workflow span and an LLM span under it, each record sent
//     as it is made and changed as it ends (the SDK's streaming mode). Prints the records' ids.
//   MODE=helpers: LOG_STREAM_ID; getProjects, getScorers and exportRecords. Prints what they answered.
const { GalileoLogger, getProjects, getScorers, exportRecords } = require('galileo');

/** Until the streaming logger has sent (and had answered) every request, for at most two minutes. */
const settled = async (logger) => {
  const tasks = logger.taskHandler;
  for (let waited = 0; tasks && !tasks.allTasksCompleted(); waited += 50) {
    if (waited > 120_000) throw new Error('the streaming logger still had requests in flight after 2 minutes');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

const batch = async () => {
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
  return { sessionId, flushed: flushed.length };
};

const streaming = async () => {
  const logger = new GalileoLogger({ projectName: process.env.PROJECT, logStreamName: process.env.LOG_STREAM, mode: 'streaming' });
  const trace = logger.startTrace({ input: 'Plan a trip to Lyon', name: 'streamed-trace', tags: ['streamed'] });
  const workflow = logger.addWorkflowSpan({ input: 'plan', name: 'planner' });
  const llm = logger.addLlmSpan({
    input: [{ role: 'user', content: 'Plan a trip to Lyon' }],
    output: { role: 'assistant', content: 'Take the TGV.' },
    model: 'gpt-4o-mini',
    name: 'llm-call',
    durationNs: 900000,
  });
  logger.conclude({ output: 'planned' }); // the workflow span
  logger.conclude({ output: 'Take the TGV.', statusCode: 200 }); // the trace
  await settled(logger);
  await logger.terminate();
  return { traceId: trace.id, workflowId: workflow.id, llmId: llm.id };
};

const helpers = async () => {
  const projects = await getProjects();
  const scorers = await getScorers();
  const exported = [];
  for await (const line of await exportRecords({ projectId: projects.find((p) => p.name === process.env.PROJECT).id, logStreamId: process.env.LOG_STREAM_ID, rootType: 'trace' }))
    exported.push(JSON.parse(line));
  return { projects: projects.map((p) => p.name), scorers: scorers.map((s) => s.name), exported };
};

const flows = { batch, streaming, helpers };
(async () => {
  const flow = flows[process.env.MODE ?? 'batch'];
  if (!flow) throw new Error(`no flow ${process.env.MODE}`);
  process.stdout.write(JSON.stringify(await flow()));
})().catch((e) => {
  process.stderr.write(String(e && e.stack ? e.stack : e));
  process.exit(1);
});
