// Realistic LLM traces for the benchmarks, deterministic from a seed: an agent's run of ~10 spans (a
// retriever, LLM calls with ~1 KB prompts, tool calls, chains), grouped in sessions, each trace given as
// the origin's JSON ingest body and as OpenInference OTLP spans, so that both paths store the same records.
import { createHash } from 'node:crypto';

/** mulberry32: a small seeded generator, so that every run (and the before/after builds) sees the same text. */
const random = (seed) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vor', 'qui', 'ne', 'sal', 'dor', 'pe', 'tri', 'zan', 'ul', 'bes', 'go', 'fen', 'ri', 'cha', 'mon', 'ta', 'lis', 'gre', 'po', 'vin', 'du', 'sha', 'ker', 'am', 'ex'];
/** Words people write, most frequent first: the head of the vocabulary, as in English text. */
const COMMON = (
  'the of and to a in is for on that with as it be you this are or your by can from at we not have an will if ' +
  'order account refund payment customer support please help shipping delivery product price plan subscription ' +
  'invoice card billing return policy issue error service update change cancel request time days information ' +
  'email address number team question answer thanks available status tracking item package warranty store'
).split(' ');
/** ~30,000 words: the common ones, then made-up ones, ranked; drawn with Zipf's law (s = 1.1). */
const VOCABULARY_SIZE = 30_000;

const buildVocabulary = (rnd) => {
  const words = [...COMMON];
  const seen = new Set(words);
  while (words.length < VOCABULARY_SIZE) {
    let w = '';
    for (let n = 2 + Math.floor(rnd() * 3); n > 0; n--) w += SYLLABLES[Math.floor(rnd() * SYLLABLES.length)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  const cumulative = new Float64Array(words.length);
  let sum = 0;
  for (let r = 0; r < words.length; r++) cumulative[r] = sum += 1 / Math.pow(r + 1, 1.1);
  return { words, cumulative, total: sum };
};

const MODELS = ['gpt-4o-mini', 'gpt-4o', 'claude-sonnet-4', 'llama-3.1-70b'];
const TOOLS = Array.from({ length: 40 }, (_, i) => `tool_${['lookup', 'search', 'create', 'update', 'fetch'][i % 5]}_${['order', 'ticket', 'user', 'invoice', 'shipment', 'refund', 'catalog', 'account'][i >> 3]}`);
/** One customer name in 20,000 per trace: a needle that matches a few traces of a million spans. */
const CUSTOMERS = 20_000;
/** Tenants, a tag each trace carries: one tenant's tag matches one trace in 2,000. */
const TENANTS = 2_000;

const uuidOf = (hex) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
const hexOf = (text, length) => createHash('sha256').update(text).digest('hex').slice(0, length);

/**
 * A corpus: `trace(i)` is the i-th trace (the same for a seed, whatever was asked before), started
 * `stepMs` after the one before from `startMs`. Sessions hold 5 consecutive traces.
 */
export const llmCorpus = ({ seed = 37, startMs = Date.UTC(2026, 0, 1), stepMs = 1000 } = {}) => {
  const vocabulary = buildVocabulary(random(seed));
  const systemPrompts = Array.from({ length: 6 }, (_, i) => {
    const rnd = random(seed * 31 + i);
    const words = (n) => Array.from({ length: n }, () => draw(vocabulary, rnd)).join(' ');
    return `You are a support assistant for Acme store number ${i}. Answer the customer's question using only the context below. ${words(70)}. Be concise and polite; ${words(20)}.`;
  });
  const customerName = (n) => {
    const rnd = random(seed * 7919 + n);
    const part = () => {
      let w = '';
      for (let k = 2 + Math.floor(rnd() * 2); k > 0; k--) w += SYLLABLES[Math.floor(rnd() * SYLLABLES.length)];
      return w[0].toUpperCase() + w.slice(1);
    };
    return `${part()}${n.toString(36)} ${part()}`;
  };

  const trace = (i) => {
    const rnd = random(seed * 1_000_003 + i);
    const words = (n) => {
      let s = '';
      for (let k = 0; k < n; k++) s += (k ? ' ' : '') + draw(vocabulary, rnd);
      return s;
    };
    const pick = (list) => list[Math.floor(rnd() * list.length)];
    const session = Math.floor(i / 5);
    const customer = customerName(Math.floor(rnd() * CUSTOMERS));
    const tenant = `tenant-${Math.floor(rnd() * TENANTS)}`;
    const question = `Hello, I am ${customer}. ${words(14 + Math.floor(rnd() * 12))}?`;
    const documents = Array.from({ length: 3 }, (_, d) => ({ id: `doc-${Math.floor(rnd() * 50_000)}`, score: Number((0.9 - d * 0.1 - rnd() * 0.05).toFixed(3)), content: `${words(35 + Math.floor(rnd() * 25))}.` }));
    const system = pick(systemPrompts);
    const model = pick(MODELS);
    const t0 = startMs + i * stepMs;
    const failing = rnd() < 0.0005; // one trace in 2,000 has a failed tool call: status 500
    const complete = rnd() >= 0.0005; // and one in 2,000 is sent as not complete
    const orderId = `ORD-${100000 + Math.floor(rnd() * 900000)}`;
    const tool1 = pick(TOOLS);
    const tool2 = pick(TOOLS);
    const llm = (k, messages, answer, at) => {
      const prompt = Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
      const completion = Math.ceil(answer.length / 4);
      // One LLM call in 2,000 has a prompt of tens of thousands of tokens (a metric outlier).
      const outlier = rnd() < 0.0005;
      return { kind: 'LLM', name: `chat ${model}`, at, durationMs: 400 + Math.floor(rnd() * 1600), model, temperature: pick([0, 0.2, 0.7]), messages, answer, tokens: { prompt: outlier ? 40_000 + prompt : prompt, completion }, finishReason: k === 2 ? 'stop' : 'tool_calls' };
    };
    const context = documents.map((d) => d.content).join('\n');
    const userTurn = { role: 'user', content: `Context:\n${context}\n\nQuestion: ${question}` };
    const answer1 = `I will look up order ${orderId} with ${tool1}. ${words(12)}.`;
    const result1 = JSON.stringify({ order: orderId, status: pick(['shipped', 'pending', 'delivered', 'returned']), items: 1 + Math.floor(rnd() * 4), note: words(10) });
    const answer2 = `Let me also check ${tool2}. ${words(10)}.`;
    const result2 = JSON.stringify({ ok: !failing, detail: words(8) });
    const finalAnswer = `${words(40 + Math.floor(rnd() * 30))}.`;
    const spans = [
      { kind: 'AGENT', name: 'support-agent', at: 0, durationMs: 6000, input: question, output: finalAnswer, parent: -1 },
      { kind: 'CHAIN', name: 'plan', at: 5, durationMs: 40, input: question, output: `steps: retrieve, ${tool1}, ${tool2}, answer`, parent: 0 },
      { kind: 'RETRIEVER', name: 'search-kb', at: 50, durationMs: 120, input: question, documents, parent: 0 },
      { ...llm(0, [{ role: 'system', content: system }, userTurn], answer1, 200), parent: 0 },
      { kind: 'TOOL', name: tool1, at: 1500, durationMs: 80, input: JSON.stringify({ order_id: orderId }), output: result1, toolCallId: `call_${hexOf(`${i}a`, 12)}`, parent: 0 },
      { ...llm(1, [{ role: 'system', content: system }, userTurn, { role: 'assistant', content: answer1 }, { role: 'tool', content: result1 }], answer2, 1700), parent: 0 },
      { kind: 'TOOL', name: tool2, at: 3000, durationMs: 90, input: JSON.stringify({ order_id: orderId, reason: words(3) }), output: result2, toolCallId: `call_${hexOf(`${i}b`, 12)}`, failed: failing, parent: 0 },
      { ...llm(2, [{ role: 'system', content: system }, userTurn, { role: 'tool', content: result2 }], finalAnswer, 3200), parent: 0 },
      { kind: 'CHAIN', name: 'format-answer', at: 5800, durationMs: 20, input: finalAnswer, output: finalAnswer, parent: 0 },
      { kind: 'GUARDRAIL', name: 'pii-check', at: 5900, durationMs: 15, input: finalAnswer, output: 'pass', parent: 0 },
    ];
    const traceHex = hexOf(`trace-${seed}-${i}`, 32);
    return {
      index: i,
      traceHex,
      traceId: uuidOf(traceHex),
      sessionId: uuidOf(hexOf(`session-${seed}-${session}`, 32)),
      startMs: t0,
      complete,
      tags: ['prod', rnd() < 0.5 ? 'web' : 'mobile', tenant],
      metadata: { customer_tier: pick(['free', 'pro', 'enterprise']), region: pick(['eu', 'us', 'apac']) },
      customer,
      tenant,
      spans: spans.map((s, k) => {
        const spanHex = hexOf(`span-${seed}-${i}-${k}`, 16);
        return { ...s, spanHex, id: uuidOf(hexOf(`span-${seed}-${i}-${k}`, 32)) };
      }),
    };
  };
  return { trace, vocabulary: vocabulary.words };
};

const draw = ({ words, cumulative, total }, rnd) => {
  const x = rnd() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return words[lo];
};

const KIND_TYPES = { AGENT: 'agent', CHAIN: 'workflow', RETRIEVER: 'retriever', LLM: 'llm', TOOL: 'tool', GUARDRAIL: 'control' };

/** What a span's input and output are, as both paths store them (messages for an LLM call, documents for a retriever). */
const inputOf = (s) => (s.kind === 'LLM' ? s.messages : s.input);
const outputOf = (s) =>
  s.kind === 'LLM' ? { role: 'assistant', content: s.answer } : s.kind === 'RETRIEVER' ? s.documents.map((d) => ({ content: d.content, metadata: { id: d.id, score: d.score } })) : s.output;
const statusOf = (s) => (s.failed ? 500 : 200);

/** The trace in the origin's JSON ingest form: the trace, its agent span, and the agent's nine children. */
export const jsonTrace = (t) => {
  const node = (s) => {
    const metrics = { duration_ns: s.durationMs * 1_000_000 };
    if (s.tokens) Object.assign(metrics, { num_input_tokens: s.tokens.prompt, num_output_tokens: s.tokens.completion, num_total_tokens: s.tokens.prompt + s.tokens.completion });
    return {
      type: KIND_TYPES[s.kind],
      id: s.id,
      name: s.name,
      created_at: new Date(t.startMs + s.at).toISOString(),
      input: inputOf(s),
      output: outputOf(s),
      tags: t.tags,
      user_metadata: t.metadata,
      status_code: statusOf(s),
      metrics,
      ...(s.failed ? { error_message: 'tool call failed' } : {}),
      ...(s.kind === 'LLM' ? { model: s.model, temperature: s.temperature, finish_reason: s.finishReason } : {}),
      ...(s.kind === 'TOOL' ? { tool_call_id: s.toolCallId } : {}),
    };
  };
  const [root, ...children] = t.spans;
  return {
    id: t.traceId,
    name: root.name,
    created_at: new Date(t.startMs).toISOString(),
    input: root.input,
    output: root.output,
    tags: t.tags,
    user_metadata: t.metadata,
    status_code: 200,
    session_id: t.sessionId,
    metrics: { duration_ns: root.durationMs * 1_000_000 },
    spans: [{ ...node(root), spans: children.map(node) }],
  };
};

/** The trace's spans as OpenInference instrumentations export them (OTLP protobuf objects, ids as bytes). */
export const otlpSpans = (t) => {
  const attr = (key, value) =>
    typeof value === 'string' ? { key, value: { stringValue: value } } : Number.isInteger(value) ? { key, value: { intValue: value } } : { key, value: { doubleValue: value } };
  return t.spans.map((s) => {
    const a = [
      attr('openinference.span.kind', s.kind),
      attr('session.id', t.sessionId),
      { key: 'tag.tags', value: { arrayValue: { values: t.tags.map((x) => ({ stringValue: x })) } } },
      attr('metadata', JSON.stringify(t.metadata)),
    ];
    if (s.kind === 'LLM') {
      // As the OpenAI instrumentation sends a call: the request and the response whole, and the messages flattened.
      a.push(attr('input.value', JSON.stringify({ model: s.model, temperature: s.temperature, messages: s.messages })), attr('input.mime_type', 'application/json'));
      a.push(attr('output.value', JSON.stringify({ model: s.model, choices: [{ index: 0, finish_reason: s.finishReason, message: { role: 'assistant', content: s.answer } }] })), attr('output.mime_type', 'application/json'));
      s.messages.forEach((m, k) => a.push(attr(`llm.input_messages.${k}.message.role`, m.role), attr(`llm.input_messages.${k}.message.content`, m.content)));
      a.push(attr('llm.output_messages.0.message.role', 'assistant'), attr('llm.output_messages.0.message.content', s.answer));
      a.push(attr('llm.model_name', s.model), attr('llm.provider', 'openai'), attr('llm.system', 'openai'), attr('llm.invocation_parameters', JSON.stringify({ temperature: s.temperature })));
      a.push(attr('llm.token_count.prompt', s.tokens.prompt), attr('llm.token_count.completion', s.tokens.completion), attr('llm.token_count.total', s.tokens.prompt + s.tokens.completion));
      a.push(attr('llm.finish_reason', s.finishReason));
    } else if (s.kind === 'RETRIEVER') {
      a.push(attr('input.value', s.input), attr('input.mime_type', 'text/plain'));
      a.push(attr('output.value', JSON.stringify(outputOf(s))), attr('output.mime_type', 'application/json'));
      s.documents.forEach((d, k) => a.push(attr(`retrieval.documents.${k}.document.id`, d.id), attr(`retrieval.documents.${k}.document.score`, d.score), attr(`retrieval.documents.${k}.document.content`, d.content)));
    } else {
      a.push(attr('input.value', s.input), attr('input.mime_type', 'text/plain'), attr('output.value', s.output), attr('output.mime_type', 'text/plain'));
      if (s.kind === 'TOOL') a.push(attr('tool.name', s.name), attr('tool_call.id', s.toolCallId));
    }
    const start = BigInt(t.startMs + s.at) * 1_000_000n;
    return {
      traceId: Buffer.from(t.traceHex, 'hex'),
      spanId: Buffer.from(s.spanHex, 'hex'),
      ...(s.parent >= 0 ? { parentSpanId: Buffer.from(t.spans[s.parent].spanHex, 'hex') } : {}),
      name: s.name,
      kind: s.kind === 'LLM' ? 3 : 1,
      startTimeUnixNano: String(start),
      endTimeUnixNano: String(start + BigInt(s.durationMs) * 1_000_000n),
      attributes: a,
      status: s.failed ? { code: 2, message: 'tool call failed' } : { code: 1 },
    };
  });
};

/** Every text a span stores in its input, as searches see it (message contents, documents, strings). */
export const inputText = (s) => (s.kind === 'LLM' ? s.messages.map((m) => m.content).join('\n') : s.input);
