// Data for the console's browser tests and screenshots, sent through the API with the built typed client
// as an SDK would: a project with a log stream of traces (LLM chat calls, retrieval, tools that sometimes
// fail), a few sessions, names in right-to-left scripts and of great length, and two LLM-judge scorers
// with thresholds attached to the run. The server scores the LLM spans itself, through a gateway that is
// the testkit's OpenAI-compatible stub answering by `supportJudges` (below): the values, levels,
// explanations and statuses the console shows are the evaluation engine's.
'use strict';
const { TracelightClient } = require('../../packages/client/dist/index.js');

const MODELS = ['gpt-4o-mini', 'claude-3-5-haiku'];
const QUESTIONS = [
  'Where is my order #4417?',
  'Can I change the delivery address after checkout?',
  'The blender I bought makes a grinding noise. What should I do?',
  'Do you ship to Norway?',
  'How do I reset my password?',
  'My discount code SPRING24 does not work.',
];

/** A deterministic stream of numbers in [0, 1): the same seed gives the same data. */
const random = (seed) => {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return ((s >>> 0) % 100_000) / 100_000;
  };
};

/** One support conversation: the trace, a workflow, retrieval, the model call and a tool (which fails one time in five). */
const traceOf = (i, at, rnd, extra = {}) => {
  const question = QUESTIONS[i % QUESTIONS.length];
  const model = MODELS[i % MODELS.length];
  const fails = i % 5 === 3;
  const t = (ms) => new Date(at + ms).toISOString();
  const ns = (ms) => Math.round(ms * 1e6);
  const llmMs = 300 + Math.round(rnd() * 900);
  const toolMs = fails ? 2000 : 40 + Math.round(rnd() * 120);
  const answer = fails
    ? 'I am sorry, I could not look up your order right now. Please try again in a few minutes.'
    : `Thanks for asking! ${question.includes('order') ? 'Your order left our warehouse yesterday and should arrive within two days.' : 'Here is what you can do: open Settings, choose the option and confirm.'}`;
  const inputTokens = 120 + Math.round(rnd() * 400);
  const outputTokens = 30 + Math.round(rnd() * 160);
  const total = 60 + toolMs + llmMs + 30;
  return {
    name: extra.name ?? `support: ${question}`,
    input: question,
    output: answer,
    created_at: t(0),
    tags: ['support', i % 2 === 0 ? 'web' : 'mobile', ...(fails ? ['escalated'] : [])],
    user_metadata: { customer_tier: i % 3 === 0 ? 'gold' : 'standard', region: i % 2 === 0 ? 'eu-west' : 'us-east' },
    metrics: { duration_ns: ns(total) },
    ...(fails ? { status_code: 500, error_message: 'order service timed out' } : {}),
    spans: [
      {
        type: 'workflow',
        name: 'answer question',
        input: question,
        output: answer,
        created_at: t(5),
        metrics: { duration_ns: ns(total - 10) },
        spans: [
          {
            type: 'retriever',
            name: 'search help center',
            input: question,
            output: [
              { id: 'kb-12', title: 'Tracking an order', score: 0.82 },
              { id: 'kb-40', title: 'Changing a delivery address', score: 0.61 },
            ],
            created_at: t(10),
            metrics: { duration_ns: ns(45) },
          },
          {
            type: 'tool',
            name: 'lookup_order',
            input: JSON.stringify({ order_id: '4417', include_history: true }),
            output: fails ? '' : JSON.stringify({ status: 'shipped', carrier: 'DHL', eta_days: 2, history: [{ at: t(-86_400_000), event: 'packed' }, { at: t(-43_200_000), event: 'shipped' }] }),
            created_at: t(60),
            metrics: { duration_ns: ns(toolMs) },
            tool_call_id: `call_${i}`,
            ...(fails ? { status_code: 500, error_message: 'order service timed out after 2000 ms' } : {}),
          },
          {
            type: 'llm',
            name: 'chat completion',
            model,
            temperature: 0.2,
            finish_reason: 'stop',
            input: [
              { role: 'system', content: 'You are a friendly support agent for an online shop. Answer briefly and never invent order data.' },
              { role: 'user', content: question },
            ],
            output: { role: 'assistant', content: answer },
            created_at: t(70 + toolMs),
            metrics: { duration_ns: ns(llmMs), num_input_tokens: inputTokens, num_output_tokens: outputTokens, num_total_tokens: inputTokens + outputTokens },
            tags: ['generation'],
          },
        ],
      },
    ],
  };
};

const APOLOGY = 'could not look up your order';
const judgeAnswer = (value, explanation) => JSON.stringify({ explanation, rating: value });

/** The seeded toxicity judge's score by question (its index in QUESTIONS): each of Low, Medium and High occurs. */
const TOXICITY = [0.04, 0.12, 0.46, 0.21, 0.78, 0.55];
/** The seeded correctness judges' verdicts by question, judge by judge (three judges: 1, 2/3 or 1/3 said yes). */
const CORRECT = [
  [true, true, true],
  [true, true, false],
  [true, false, false],
  [true, true, true],
  [true, true, false],
  [true, false, false],
];

/**
 * What the judges of the seeded scorers answer, as a rule of the testkit's OpenAI-compatible stub
 * (`stub.answerWith(supportJudges)`): deterministic, from the question and the answer the judged span
 * carries. Toxicity (one judge) scores by question, a little higher where the answer apologises for a
 * failed lookup; correctness (three judges) by question, and one in three where the lookup failed; the
 * correctness judges of the failed lookups about shipping to Norway answer no JSON at all, so that those
 * jobs end `failed` with the judge's words.
 */
const supportJudges = (request, index) => {
  const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
  const text = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const q = Math.max(0, QUESTIONS.findIndex((question) => text.includes(question)));
  const question = QUESTIONS[q];
  const apologises = text.includes(APOLOGY);
  if (/toxic/i.test(system)) {
    const value = Math.round((TOXICITY[q] + (apologises ? 0.1 : 0)) * 100) / 100;
    const words =
      value < 0.3
        ? `Polite and calm: the reply to “${question}” has no insult, threat or sarcasm.`
        : value < 0.7
          ? `Curt in places: the reply to “${question}” brushes the customer off, though it insults no one.`
          : `Condescending: the reply to “${question}” talks down to the customer.`;
    return judgeAnswer(value, words);
  }
  if (apologises && question === 'Do you ship to Norway?') return 'I cannot judge this reply.';
  const yes = apologises ? index % 3 === 2 : CORRECT[q][index % 3];
  const words = apologises
    ? yes
      ? 'The reply is honest that the lookup failed, and invents no order data.'
      : `The reply does not answer “${question}”: it only says the order service failed.`
    : yes
      ? `The reply answers “${question}” with steps that fit it.`
      : `The reply to “${question}” is generic: it names no setting or option that applies.`;
  return judgeAnswer(yes, words);
};

/** The run's scoring status once no job is queued or in hand and every in-use scorer has `jobs` jobs; within `withinMs`. */
const scoringSettles = async (client, projectId, runId, jobs, withinMs = 180_000) => {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const status = await client.metricsStatus(projectId, runId);
    const inUse = status.scorers.filter((s) => s.in_use);
    const total = (s) => Object.values(s.jobs).reduce((a, b) => a + b, 0);
    if (inUse.every((s) => total(s) >= jobs && s.jobs.pending + s.jobs.computing === 0)) return status;
    if (Date.now() > deadline) throw new Error(`scoring did not settle within ${withinMs} ms: ${JSON.stringify(status)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/**
 * Seeds one project. `traces` conversations, one a minute going back from now (the newest first on the
 * page), in batches. With `gateway` (the stub's base URL), the caller's gateway integration is set to it
 * and the seed returns once the server has scored every LLM span of the run (the stub answering by
 * `supportJudges`). Returns the ids the tests navigate to.
 */
const seedConsole = async (baseUrl, credentials, options = {}) => {
  const client = new TracelightClient(baseUrl, credentials);
  if (options.gateway) await client.upsertGatewayIntegration({ token: 'sk-console-seed', endpoint: options.gateway, use_case: 'EVALUATION' });
  const count = options.traces ?? 60;
  const rnd = random(options.seed ?? 38);
  const project = await client.createProject({ name: options.project ?? `Support bot ${Date.now().toString(36)}` });
  const run = await client.createLogStream(project.id, options.logStream ?? 'production');
  const experiment = await client.createExperiment(project.id, 'prompt v2 vs v1');
  const suffix = options.scorerSuffix ?? '';
  const toxicity = await client.createScorer({
    name: `toxicity${suffix}`,
    scorer_type: 'llm',
    label: 'Toxicity',
    group_label: 'Safety Metrics',
    data_unit: 'percentage',
    threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'], inverted: true },
  });
  await client.createLlmVersion(toxicity.id, { instructions: 'Rate how toxic the answer is, from 0 to 1.', output_type: 'percentage', model_name: 'gpt-4.1-mini', num_judges: 1 });
  const correctness = await client.createScorer({
    name: `correctness${suffix}`,
    scorer_type: 'llm',
    label: 'Correctness',
    group_label: 'Quality',
    threshold: { buckets: [0.5, 0.8], display_value_levels: ['Poor', 'Fair', 'Good'], inverted: false },
  });
  for (const text of ['Is the answer correct?', 'Is the answer correct and grounded in the retrieved documents?'])
    await client.createLlmVersion(correctness.id, { instructions: text, output_type: 'boolean', model_name: 'gpt-4.1-mini', num_judges: 3 });
  await client.setRunScorers(project.id, run.id, [{ scorer_id: toxicity.id }, { scorer_id: correctness.id }]);
  const now = options.now ?? Date.now();
  const traces = [];
  for (let i = 0; i < count; i++) traces.push(traceOf(i, now - (i + 1) * 60_000, rnd));
  // Right-to-left and very long names: the layout must hold them.
  traces.push(traceOf(101, now - 30_000, rnd, { name: 'مساعد الدعم: أين طلبي؟' }));
  traces.push(traceOf(102, now - 20_000, rnd, { name: `a trace with a very long name ${'that goes on and on '.repeat(12)}without a break_${'x'.repeat(120)}` }));
  const traceIds = [];
  for (let i = 0; i < traces.length; i += 50) {
    const answer = await client.ingestTraces(project.id, { log_stream_id: run.id, traces: traces.slice(i, i + 50), include_trace_ids: true });
    traceIds.push(...(answer.trace_ids ?? []));
  }
  const sessions = [];
  for (const [name, n] of [['checkout help', 3], ['returns', 2]]) {
    const session = await client.createSession(project.id, { log_stream_id: run.id, name, external_id: `ext-${name.replace(' ', '-')}` });
    await client.ingestTraces(project.id, { log_stream_id: run.id, session_id: session.id, traces: Array.from({ length: n }, (_, k) => traceOf(200 + k, now - 90_000 - k * 1000, rnd)) });
    sessions.push(session.id);
  }
  // An experiment with a couple of traces, so that its page has rows too.
  await client.ingestTraces(project.id, { experiment_id: experiment.id, traces: [traceOf(300, now - 5_000, rnd), traceOf(301, now - 4_000, rnd)] });
  // One LLM span a conversation, each scored by both scorers.
  if (options.gateway) await scoringSettles(client, project.id, run.id, traces.length + 5);
  return {
    projectId: project.id,
    projectName: project.name,
    runId: run.id,
    experimentId: experiment.id,
    traceIds,
    sessionIds: sessions,
    scorerIds: { toxicity: toxicity.id, correctness: correctness.id },
    tracesCount: traces.length + 5,
  };
};

module.exports = { seedConsole, traceOf, random, supportJudges, scoringSettles, QUESTIONS };
