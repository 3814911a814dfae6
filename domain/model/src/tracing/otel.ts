// OpenTelemetry spans → Tracelight records. One priority-ordered table per field reads the
// conventions LLM instrumentations use: OpenInference first, then Langfuse (langfuse.*), the GenAI
// semantic conventions (gen_ai.*, 1.37's and OpenLLMetry's older flattened ones), then the Vercel AI
// SDK (ai.*); a few span events fill in what attributes leave out. An LLM call's messages are built
// in the shape the origin's SDKs send (otel-messages.ts). Pure: no decoding, no I/O.
import * as E from 'fp-ts/Either';
import type { SpanType } from '../columns/column';
import { type DomainError, invalid } from '../shared/errors';
import type { ProjectId, RunId } from '../shared/ids';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth';
import { holdsLoneSurrogate, prefixOf } from '../shared/text';
import type { Json, LogRecord, TypedAttributes } from './log-record';
import {
  type ChatMessage,
  attributeKeys,
  chatMessages,
  genAiFinishReason,
  genAiMessages,
  genAiSystemMessage,
  genAiTools,
  openInferenceMessages,
  openInferenceTools,
  openLlmetryMessages,
  openLlmetryTools,
  outputOf,
  vercelResponse,
} from './otel-messages';

export type OtelValue = string | number | boolean | null | ReadonlyArray<OtelValue> | { readonly [k: string]: OtelValue };
export type OtelAttributes = Readonly<Record<string, OtelValue>>;

/**
 * Events the mapping reads, by name: a recorded exception, and the prompt and completion that the
 * GenAI semantic conventions up to 1.27 (OpenLLMetry among others) carry in events. Only the first
 * of each name is read, so a decoder may leave every other event out.
 */
export const OTEL_EVENT_NAMES: ReadonlySet<string> = new Set(['exception', 'gen_ai.content.prompt', 'gen_ai.content.completion']);

/** A span event as the mapping reads it: its time is of no use to it, so not kept. */
export interface OtelEvent {
  readonly name: string;
  readonly attributes: OtelAttributes;
}

/** One span as every OTLP encoding decodes to it. Ids are lower-case hex; times are Unix nanoseconds. */
export interface OtelSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | null;
  readonly name: string;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: OtelAttributes;
  /** The span's events in the order it recorded them; the decoder keeps the first of each name in OTEL_EVENT_NAMES. */
  readonly events: ReadonlyArray<OtelEvent>;
  readonly status: { readonly code: number; readonly message: string };
  readonly resource: OtelAttributes;
  readonly scope: { readonly name: string; readonly version: string };
}

type Reader<T> = (a: OtelAttributes) => T | undefined;

const str = (key: string): Reader<string> => (a) => {
  const v = a[key];
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
};
/** A finite number (NaN and the infinities, which a doubleValue can carry, are no measure). */
const num = (key: string): Reader<number> => (a) => {
  const v = a[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};
/**
 * A count (a token count): a whole number, not negative, and held exactly (up to 2^53 - 1); anything
 * else is no count, and the next source is read.
 */
const count = (key: string): Reader<number> => (a) => {
  const n = num(key)(a);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};
/**
 * The JSON document a string holds, or the string itself: when it is not JSON, when `structuredOnly`
 * and it is not an object or a list (so `"42"` stays text), or when it nests deeper than a request
 * body may (it could be stored but not written back).
 */
const parsed = (v: string, structuredOnly: boolean): Json => {
  if (structuredOnly && !/^\s*[[{]/.test(v)) return v;
  try {
    const doc = JSON.parse(v) as Json;
    return nestsDeeperThan(doc, MAX_JSON_DEPTH) ? v : doc;
  } catch {
    return v;
  }
};
/** A JSON document carried in a string attribute (message lists are), or the value itself when structured. */
const json = (key: string): Reader<Json> => (a) => {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? parsed(v, false) : (v as Json);
};
/**
 * OpenInference's `input.value` / `output.value`: read as JSON when its `*.mime_type` says
 * application/json, kept as the text it is when it says anything else; without a mime type, only an
 * object or a list is read as JSON, so text that happens to parse (`42`, `true`, `null`) stays text.
 */
const valueByMime = (key: string, mimeKey: string): Reader<Json> => (a) => {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') return v as Json;
  const mime = a[mimeKey];
  if (typeof mime === 'string') return mime.toLowerCase().startsWith('application/json') ? parsed(v, false) : v;
  return parsed(v, true);
};
/** Text as it is, an object or a list (in JSON text or structured) as its document: Langfuse sends text unquoted. */
const textOrDocument = (key: string): Reader<Json> => (a) => {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  return typeof v === 'string' ? parsed(v, true) : (v as Json);
};
/** A list of strings: the attribute's list, or the list its JSON text holds. */
const stringList = (key: string): Reader<ReadonlyArray<string>> => (a) => {
  const v = a[key];
  const list = typeof v === 'string' ? parsed(v, true) : v;
  return Array.isArray(list) && list.length > 0 && list.every((x) => typeof x === 'string') ? (list as ReadonlyArray<string>) : undefined;
};
const first = <T>(...readers: ReadonlyArray<Reader<T>>): Reader<T> => (a) => {
  for (const r of readers) {
    const v = r(a);
    if (v !== undefined) return v;
  }
  return undefined;
};

const OPENINFERENCE_KINDS: Readonly<Record<string, SpanType>> = {
  LLM: 'llm', EMBEDDING: 'llm', CHAIN: 'workflow', TOOL: 'tool', RETRIEVER: 'retriever', RERANKER: 'retriever',
  AGENT: 'agent', GUARDRAIL: 'control', EVALUATOR: 'workflow',
};
/** Langfuse's observation types (langfuse.observation.type): a generation is an LLM call. */
const LANGFUSE_TYPES: Readonly<Record<string, SpanType>> = {
  generation: 'llm', embedding: 'llm', span: 'workflow', event: 'workflow', chain: 'workflow', evaluator: 'workflow',
  agent: 'agent', tool: 'tool', retriever: 'retriever', guardrail: 'control',
};
const GENAI_OPERATIONS: Readonly<Record<string, SpanType>> = {
  chat: 'llm', text_completion: 'llm', generate_content: 'llm', embeddings: 'llm', execute_tool: 'tool',
  invoke_agent: 'agent', create_agent: 'agent',
};
const VERCEL_OPERATIONS: ReadonlyArray<readonly [RegExp, SpanType]> = [
  [/^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/, 'llm'],
  [/^ai\.embed(Many)?\.doEmbed$/, 'llm'],
  [/^ai\.toolCall$/, 'tool'],
  [/^ai\./, 'workflow'],
];

/** A table's own entry: a name every object inherits (`toString`, `constructor`, `__proto__`) is no kind. */
const own = <V>(table: Readonly<Record<string, V>>, key: string): V | undefined => (Object.hasOwn(table, key) ? table[key] : undefined);

const typeOf: Reader<SpanType> = first<SpanType>(
  (a) => own(OPENINFERENCE_KINDS, (str('openinference.span.kind')(a) ?? '').toUpperCase()),
  (a) => own(LANGFUSE_TYPES, (str('langfuse.observation.type')(a) ?? '').toLowerCase()),
  (a) => own(GENAI_OPERATIONS, (str('gen_ai.operation.name')(a) ?? '')),
  (a) => {
    const op = str('ai.operationId')(a);
    return op ? VERCEL_OPERATIONS.find(([re]) => re.test(op))?.[1] : undefined;
  },
  (a) => (a['gen_ai.request.model'] !== undefined || a['gen_ai.system'] !== undefined ? 'llm' : undefined),
);

/** Whether a Vercel AI SDK span is a provider call (ai.generateText.doGenerate, …), whose output is a message. */
const isVercelModelCall = (a: OtelAttributes): boolean => {
  const op = str('ai.operationId')(a);
  return op !== undefined && VERCEL_OPERATIONS.find(([re]) => re.test(op))?.[1] === 'llm';
};

/** Whether a Langfuse observation is a model call, whose input and output are read as chat messages. */
const isLangfuseModelCall = (a: OtelAttributes): boolean => {
  const type = (str('langfuse.observation.type')(a) ?? '').toLowerCase();
  return type === 'generation' || type === 'embedding';
};
/**
 * Langfuse's observation input or output: text as it is (its SDK sends text unquoted), an object or a
 * list as its document; a model call's as chat messages when it holds them (OpenAI's shape), as the SDKs send them.
 */
const langfuseValue = (key: string, role: string): Reader<Json> => (a) => {
  const doc = textOrDocument(key)(a);
  if (doc === undefined || !isLangfuseModelCall(a) || typeof doc === 'string') return doc;
  const messages = chatMessages(doc, role);
  return messages === undefined ? doc : role === 'user' ? (messages as unknown as Json) : outputOf(messages);
};

/** The input messages of the GenAI conventions 1.37: the system instructions first, then gen_ai.input.messages. */
const genAiInput: Reader<Json> = (a) => {
  const messages = genAiMessages(a['gen_ai.input.messages']);
  const system = genAiSystemMessage(a['gen_ai.system_instructions'] ?? undefined);
  if (messages === undefined) return system === undefined ? undefined : ([system] as unknown as Json);
  return (system === undefined ? messages : [system, ...messages]) as unknown as Json;
};
const asInput = (messages: ReadonlyArray<ChatMessage> | undefined): Json | undefined => messages as unknown as Json | undefined;

/** A number in a JSON object an attribute holds (Langfuse's usage_details and model.parameters, OpenInference's invocation parameters). */
const inDocument = (key: string, field: string): Reader<number> => (a) => {
  const doc = json(key)(a);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const v = (doc as Record<string, Json>)[field];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};
/** A count in a JSON object an attribute holds: a whole number, not negative, held exactly. */
const countIn = (key: string, field: string): Reader<number> => (a) => {
  const n = inDocument(key, field)(a);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
};

/** Tools as the column holds them: the JSON text of the list of definitions. */
const toolsText = (read: (a: OtelAttributes) => ReadonlyArray<Json> | undefined): Reader<string> => (a) => {
  const tools = read(a);
  return tools === undefined ? undefined : JSON.stringify(tools);
};
/** The Vercel AI SDK's ai.prompt.tools: a list of definitions, each its JSON text. */
const vercelTools = (a: OtelAttributes): ReadonlyArray<Json> | undefined => {
  const v = a['ai.prompt.tools'];
  return Array.isArray(v) ? genAiTools(v.map((d) => (typeof d === 'string' ? parsed(d, false) : (d as Json))) as OtelValue) : undefined;
};

/** Field → its readers, highest priority first. */
export const OTEL_FIELDS = {
  // An LLM call's messages come first (OpenInference's input.value then holds the whole request), then
  // each convention's own input; a convention's messages that are not messages are kept as sent.
  input: first<Json>(
    (a) => asInput(openInferenceMessages(a, 'llm.input_messages', 'user')),
    genAiInput,
    (a) => asInput(openLlmetryMessages(a, 'gen_ai.prompt', 'user')),
    langfuseValue('langfuse.observation.input', 'user'),
    valueByMime('input.value', 'input.mime_type'),
    json('gen_ai.input.messages'),
    (a) => {
      const doc = json('ai.prompt.messages')(a);
      return doc === undefined ? undefined : asInput(chatMessages(doc, 'user')) ?? doc;
    },
    json('ai.prompt'),
    json('ai.toolCall.args'),
    json('gen_ai.tool.call.arguments'),
  ),
  output: first<Json>(
    (a) => outputOf(openInferenceMessages(a, 'llm.output_messages', 'assistant')),
    (a) => outputOf(genAiMessages(a['gen_ai.output.messages'])),
    (a) => outputOf(openLlmetryMessages(a, 'gen_ai.completion', 'assistant')),
    langfuseValue('langfuse.observation.output', 'assistant'),
    valueByMime('output.value', 'output.mime_type'),
    json('gen_ai.output.messages'),
    // A provider call's response is the assistant's message; the call that made it keeps its text.
    (a) => (isVercelModelCall(a) ? (vercelResponse(str('ai.response.text')(a), a['ai.response.toolCalls'] ?? undefined) as unknown as Json | undefined) : undefined),
    str('ai.response.text'),
    json('ai.response.object'),
    json('ai.toolCall.result'),
    json('gen_ai.tool.call.result'),
  ),
  tools: first<string>(toolsText(openInferenceTools), toolsText((a) => genAiTools(a['gen_ai.tool.definitions'])), toolsText(openLlmetryTools), toolsText(vercelTools)),
  model: first(str('llm.model_name'), str('langfuse.observation.model.name'), str('gen_ai.response.model'), str('gen_ai.request.model'), str('ai.model.id')),
  temperature: first<number>(
    inDocument('llm.invocation_parameters', 'temperature'),
    inDocument('langfuse.observation.model.parameters', 'temperature'),
    num('gen_ai.request.temperature'),
    num('ai.settings.temperature'),
  ),
  finishReason: first<string>(
    str('llm.finish_reason'),
    (a) => {
      const v = a['gen_ai.response.finish_reasons'];
      return Array.isArray(v) && typeof v[0] === 'string' ? v[0] : typeof v === 'string' ? v : undefined;
    },
    (a) => genAiFinishReason(a['gen_ai.output.messages']),
    str('gen_ai.completion.0.finish_reason'),
    str('ai.response.finishReason'),
  ),
  toolCallId: first(str('tool_call.id'), str('gen_ai.tool.call.id'), str('ai.toolCall.id')),
  inputTokens: first(
    count('llm.token_count.prompt'),
    countIn('langfuse.observation.usage_details', 'input'),
    countIn('langfuse.observation.usage_details', 'prompt_tokens'),
    countIn('langfuse.observation.usage_details', 'input_tokens'),
    count('gen_ai.usage.input_tokens'),
    count('gen_ai.usage.prompt_tokens'),
    count('ai.usage.inputTokens'),
    count('ai.usage.promptTokens'),
  ),
  outputTokens: first(
    count('llm.token_count.completion'),
    countIn('langfuse.observation.usage_details', 'output'),
    countIn('langfuse.observation.usage_details', 'completion_tokens'),
    countIn('langfuse.observation.usage_details', 'output_tokens'),
    count('gen_ai.usage.output_tokens'),
    count('gen_ai.usage.completion_tokens'),
    count('ai.usage.outputTokens'),
    count('ai.usage.completionTokens'),
  ),
  // Sent, a total is kept as it is (it may count cached or reasoning tokens beside the two); else it is their sum.
  totalTokens: first(
    count('llm.token_count.total'),
    countIn('langfuse.observation.usage_details', 'total'),
    countIn('langfuse.observation.usage_details', 'total_tokens'),
    count('gen_ai.usage.total_tokens'),
    count('ai.usage.totalTokens'),
  ),
  sessionId: first(str('session.id'), str('langfuse.session.id'), str('gen_ai.conversation.id'), str('ai.telemetry.metadata.sessionId')),
  // A Vercel AI SDK span is named by its operation.name (`ai.generateText.doGenerate my-function`): its
  // function id alone named a call and the provider call within it alike.
  name: first(str('gen_ai.tool.name'), str('ai.toolCall.name'), (a) => (a['ai.operationId'] === undefined ? undefined : str('operation.name')(a))),
  /** Tags: OpenInference's tag.tags, Langfuse's langfuse.trace.tags (a list, or its JSON). */
  tags: first<ReadonlyArray<string>>(stringList('tag.tags'), stringList('langfuse.trace.tags')),
  traceName: str('langfuse.trace.name'),
  // A trace's own name, input and output, which Langfuse gives apart from its root observation's.
  traceInput: textOrDocument('langfuse.trace.input'),
  traceOutput: textOrDocument('langfuse.trace.output'),
} as const;

type EventReader<T> = (events: ReadonlyArray<OtelEvent>) => T | undefined;
/** `read` of the attributes of the first event named `name`. */
const onEvent = <T>(name: string, read: Reader<T>): EventReader<T> => (events) => {
  const event = events.find((e) => e.name === name);
  return event ? read(event.attributes) : undefined;
};

/** Field → where an event holds it. Input and output are read here only when no attribute gives them. */
export const OTEL_EVENT_FIELDS = {
  input: onEvent('gen_ai.content.prompt', (a) => {
    const doc = json('gen_ai.prompt')(a);
    return doc === undefined ? undefined : asInput(chatMessages(doc, 'user')) ?? doc;
  }),
  output: onEvent('gen_ai.content.completion', (a) => {
    const doc = json('gen_ai.completion')(a);
    return doc === undefined ? undefined : outputOf(chatMessages(doc, 'assistant')) ?? doc;
  }),
  exceptionType: onEvent('exception', str('exception.type')),
  exceptionMessage: onEvent('exception', str('exception.message')),
  exceptionStacktrace: onEvent('exception', str('exception.stacktrace')),
} as const;

/**
 * An exception's type and message are copied to user metadata cut to this many characters: a message
 * can hold a whole document, and metadata is shown and searched as short text.
 */
export const MAX_EXCEPTION_METADATA = 1_000;
/**
 * Its stack trace, cut to this many: the frames nearest the throw, which say where it failed (a Python
 * or Node trace of a few dozen frames fits), without keeping a deep recursion's thousands.
 */
export const MAX_STACKTRACE_METADATA = 8_000;
const clipped = (text: string, max = MAX_EXCEPTION_METADATA): string => (text.length <= max ? text : `${prefixOf(text, max)}…`);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const uuidOfHex = (hex: string): string => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;

/** Each hex digit's bits flipped: `0000` → `ffff`, `12ab` → `ed54`. */
const complementOfHex = (hex: string): string => hex.replace(/[0-9a-f]/g, (d) => (15 - parseInt(d, 16)).toString(16));

/** A trace's record id is its 128-bit trace id. */
export const otelTraceRecordId = (traceId: string): string => uuidOfHex(traceId.padStart(32, '0'));
/**
 * A span's record id is the trace id's first 64 bits, then the span's own 64. A span whose id is the
 * trace id's second half would get its trace's record id that way: Zipkin/B3 instrumentations pad a
 * 64-bit trace id to 128 bits with zeros and give the root span the same 64 bits as its id. Such a span
 * takes the first half with every bit flipped instead (trace 0000000000000000 1234567890abcdef, root
 * span 1234567890abcdef → ffffffff-ffff-ffff-1234-567890abcdef): still derived from the OTel ids alone,
 * so a retry and a child sent apart name the same record; distinct from its trace's id and from every
 * other span of the trace (whose first half is the trace's own); and, as B3 trace ids start with 64 zero
 * bits and these ids with 64 ones, from every record id of another B3 trace. Every other span keeps the
 * id it always had.
 */
export const otelSpanRecordId = (traceId: string, spanId: string): string => {
  const trace = traceId.padStart(32, '0');
  const span = spanId.padStart(16, '0');
  const high = trace.slice(0, 16);
  return uuidOfHex(`${span === trace.slice(16) ? complementOfHex(high) : high}${span}`);
};

/**
 * Where a root span stands among the root spans of its trace: its start time, then its id, as text
 * that orders as they do (a span without a start time, OTLP's 0, after every one with one). A trace can
 * have more than one root span: a service that starts a root of its own under a trace id it was given,
 * or context lost on the way. The trace's record is made from the root that started first: the one a
 * request began with, whatever order its spans were exported in (a request's root ends last, so is
 * often exported last) and however an exporter batched them. Every root is also a span of its own.
 */
export const otelRootKey = (s: OtelSpan): string =>
  `${s.startTimeUnixNano > 0n ? s.startTimeUnixNano.toString().padStart(20, '0') : 'unset'}/${s.spanId.padStart(16, '0')}`;

/** Of each trace in the spans, the root span its record is made from (otelRootKey): the one that started first. */
const firstRoots = (spans: ReadonlyArray<OtelSpan>): ReadonlySet<OtelSpan> => {
  const byTrace = new Map<string, { readonly span: OtelSpan; readonly key: string }>();
  for (const span of spans) {
    if (span.parentSpanId) continue;
    const key = otelRootKey(span);
    const known = byTrace.get(span.traceId);
    if (known === undefined || key < known.key) byTrace.set(span.traceId, { span, key });
  }
  return new Set([...byTrace.values()].map((r) => r.span));
};

/** What gives a record of an export its id, in the words of an OTLP refusal. */
const sourceOf = (s: OtelSpan, asTrace: boolean): string =>
  asTrace ? `the trace record of trace ${s.traceId} (its root span ${s.spanId})` : `span ${s.spanId} of trace ${s.traceId}`;

/**
 * The spans, when no two records of theirs (otelToRecords) would have the same id; else Invalid, naming
 * the first two that would. Stored in one request, one would replace the other: a span sent twice, or
 * two spans whose derived ids meet. (Two root spans of one trace are not: the trace's record is made
 * from one of them, otelRootKey.)
 */
export const distinctOtelRecordIds = (spans: ReadonlyArray<OtelSpan>): E.Either<DomainError, ReadonlyArray<OtelSpan>> => {
  const seen = new Map<string, { readonly span: OtelSpan; readonly asTrace: boolean }>();
  const roots = firstRoots(spans);
  for (const span of spans) {
    const ids: ReadonlyArray<readonly [string, boolean]> = [
      ...(roots.has(span) ? [[otelTraceRecordId(span.traceId), true] as const] : []),
      [otelSpanRecordId(span.traceId, span.spanId), false] as const,
    ];
    for (const [id, asTrace] of ids) {
      const first = seen.get(id);
      if (first === undefined) {
        seen.set(id, { span, asTrace });
        continue;
      }
      const message =
        first.span.traceId === span.traceId && first.span.spanId === span.spanId
          ? `span ${span.spanId} of trace ${span.traceId} is in this export twice`
          : `${sourceOf(first.span, first.asTrace)} and ${sourceOf(span, asTrace)} would both be stored as record ${id}`;
      return E.left(invalid([], message));
    }
  }
  return E.right(spans);
};

/**
 * The spans, when no text their records store as text (a record's name, its error message, its model,
 * finish reason and tool call id, its tags, which are columns filters compare) holds half of a surrogate pair;
 * else Invalid, naming the first span that does. Stored as UTF-8, such text would come back changed
 * (U+FFFD), and the engines would compare it differently (the record API refuses it too). Only
 * OTLP/JSON can carry one: protobuf strings are UTF-8 on the wire.
 */
export const storableOtelText = (spans: ReadonlyArray<OtelSpan>): E.Either<DomainError, ReadonlyArray<OtelSpan>> => {
  for (const s of spans) {
    const a = s.attributes;
    const fields: Array<readonly [string, string | null | undefined]> = [
      ['name', s.name],
      ['name', spanNameOf(s)],
      ['name', OTEL_FIELDS.traceName(a)],
      ['error message', errorMessageOf(s)],
      ['model', OTEL_FIELDS.model(a)],
      ['finish reason', OTEL_FIELDS.finishReason(a)],
      ['tool call id', OTEL_FIELDS.toolCallId(a)],
    ];
    for (const tag of OTEL_FIELDS.tags(a) ?? []) fields.push(['tag', tag]);
    const cut = fields.find(([, text]) => typeof text === 'string' && holdsLoneSurrogate(text));
    if (cut) return E.left(invalid([], `span ${s.spanId} of trace ${s.traceId}: its ${cut[0]} holds half of a surrogate pair, which cannot be stored as text`));
  }
  return E.right(spans);
};

/** A span record's name: the tool's or function's name its attributes give, else the span's own. */
const spanNameOf = (s: OtelSpan): string => OTEL_FIELDS.name(s.attributes) ?? s.name;

/** A recorded exception as one line (`<type>: <message>`, or whichever of the two there is). */
const exceptionOf = (events: ReadonlyArray<OtelEvent>): string | undefined => {
  const type = OTEL_EVENT_FIELDS.exceptionType(events);
  const message = OTEL_EVENT_FIELDS.exceptionMessage(events);
  return type && message ? `${type}: ${message}` : type || message;
};

/** Whether Langfuse says the observation failed (langfuse.observation.level ERROR): its SDK sets no OTel status. */
const failedInLangfuse = (a: OtelAttributes): boolean => (str('langfuse.observation.level')(a) ?? '').toUpperCase() === 'ERROR';

/**
 * A failed span's error: its status message, else Langfuse's status message, else its recorded
 * exception, else `error`; null when it did not fail (status code 2, ERROR, or Langfuse's level ERROR).
 */
const errorMessageOf = (s: OtelSpan): string | null => {
  if (s.status.code !== 2 && !failedInLangfuse(s.attributes)) return null;
  return s.status.message || str('langfuse.observation.status_message')(s.attributes) || exceptionOf(s.events) || 'error';
};

/**
 * A span's status_code: 500 when it failed, 200 when its status is OK, and null (unset) when its
 * status is UNSET: OpenTelemetry's three states, kept apart (most instrumentations leave a success
 * UNSET, setting only ERROR; OK is a deliberate "succeeded").
 */
const statusCodeOf = (s: OtelSpan, errorMessage: string | null): number | null => (errorMessage !== null ? 500 : s.status.code === 1 ? 200 : null);

/** Attributes kept as user metadata under their own names. */
const METADATA_ATTRIBUTES: ReadonlyArray<readonly [string, string]> = [
  ['user.id', 'user.id'],
  ['langfuse.user.id', 'user.id'],
  ['ai.telemetry.functionId', 'ai.telemetry.functionId'],
  ['langfuse.environment', 'langfuse.environment'],
  ['langfuse.release', 'langfuse.release'],
  ['langfuse.version', 'langfuse.version'],
  ['langfuse.observation.level', 'langfuse.observation.level'],
  ['langfuse.observation.status_message', 'langfuse.observation.status_message'],
  ['langfuse.observation.prompt.name', 'langfuse.observation.prompt.name'],
  ['langfuse.observation.prompt.version', 'langfuse.observation.prompt.version'],
];
/** Attributes whose entries are the user's metadata: what follows the prefix names one. */
const METADATA_PREFIXES = ['langfuse.trace.metadata.', 'langfuse.observation.metadata.', 'ai.telemetry.metadata.'] as const;
/** Attributes that hold the user's metadata whole, as a JSON object. */
const METADATA_DOCUMENTS = ['metadata', 'langfuse.trace.metadata', 'langfuse.observation.metadata'] as const;

const metadataText = (v: OtelValue | Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

/**
 * The metadata the application gave its span, as user metadata (text values, as the record API keeps
 * them): OpenInference's `metadata`, Langfuse's trace and observation metadata, the Vercel AI SDK's
 * telemetry metadata, and a few attributes under their own names (user.id, Langfuse's environment,
 * release, level and status message).
 */
const sentMetadataOf = (a: OtelAttributes): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const key of METADATA_DOCUMENTS) {
    const doc = json(key)(a);
    if (doc && typeof doc === 'object' && !Array.isArray(doc)) for (const [k, v] of Object.entries(doc)) if (v !== null) setOwn(out, k, metadataText(v));
  }
  for (const key of attributeKeys(a)) {
    const prefix = METADATA_PREFIXES.find((p) => key.startsWith(p));
    const v = a[key];
    if (prefix !== undefined && key.length > prefix.length && v !== undefined && v !== null) setOwn(out, key.slice(prefix.length), metadataText(v));
  }
  for (const [key, as] of METADATA_ATTRIBUTES) {
    const v = a[key];
    if (v !== undefined && v !== null) out[as] = metadataText(v);
  }
  return out;
};

/**
 * `o[key] = value`, where the key is the sender's: `__proto__` is a key like any other, made an own
 * property, not the map's prototype (a plain map, spread from a prototype-less one before: the copy
 * took a tenth of the mapping's time).
 */
const setOwn = (o: Record<string, string>, key: string, value: string): void => {
  if (key === '__proto__') Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  else o[key] = value;
};

export interface OtelContext {
  readonly projectId: ProjectId;
  readonly runId: RunId;
  readonly now: Date;
}

const toDate = (ns: bigint): Date => new Date(Number(ns / 1_000_000n));

/**
 * Maps spans to records. Ids are derived from the OTel ids, so a child that arrives before its
 * parent already points at the parent's record, and the link holds when the parent lands. A root
 * span is a span of its trace's record; the one that started first of those in the spans also yields
 * that record, marked with its otelRootKey, so that storage keeps the trace's record of the root
 * that started first of all those sent, over any number of exports. The records' ids are distinct
 * when distinctOtelRecordIds takes the spans.
 */
export const otelToRecords = (spans: ReadonlyArray<OtelSpan>, ctx: OtelContext): ReadonlyArray<LogRecord> => {
  const hasChildren = new Set(spans.flatMap((s) => (s.parentSpanId ? [s.parentSpanId] : [])));
  const roots = firstRoots(spans);
  const records: LogRecord[] = [];
  for (const s of spans) {
    const a = s.attributes;
    const F = OTEL_FIELDS;
    const E = OTEL_EVENT_FIELDS;
    const traceRecordId = otelTraceRecordId(s.traceId);
    const sessionText = F.sessionId(a);
    const sessionId = sessionText && UUID.test(sessionText) ? sessionText.toLowerCase() : null;
    const inputTokens = F.inputTokens(a);
    const outputTokens = F.outputTokens(a);
    // OTLP writes an unset time as 0. A span without its start was received now (docs/opentelemetry.md: created_at); one
    // without both ends, or ending before it starts, has no duration (not minus fifty years of nanoseconds).
    const started = s.startTimeUnixNano > 0n;
    const metrics: Record<string, number | null> =
      started && s.endTimeUnixNano >= s.startTimeUnixNano ? { duration_ns: Number(s.endTimeUnixNano - s.startTimeUnixNano) } : {};
    if (inputTokens !== undefined) metrics['num_input_tokens'] = inputTokens;
    if (outputTokens !== undefined) metrics['num_output_tokens'] = outputTokens;
    const totalTokens = F.totalTokens(a) ?? (inputTokens !== undefined && outputTokens !== undefined ? inputTokens + outputTokens : undefined);
    if (totalTokens !== undefined) metrics['num_total_tokens'] = totalTokens;
    const attributes: Record<string, string | number> = {};
    const model = F.model(a);
    const temperature = F.temperature(a);
    const finishReason = F.finishReason(a);
    const toolCallId = F.toolCallId(a);
    if (model !== undefined) attributes['model'] = model;
    if (temperature !== undefined) attributes['temperature'] = temperature;
    if (finishReason !== undefined) attributes['finish_reason'] = finishReason;
    if (toolCallId !== undefined) attributes['tool_call_id'] = toolCallId;
    const userMetadata = sentMetadataOf(a);
    userMetadata['otel.scope.name'] = s.scope.name;
    if (sessionText && !sessionId) userMetadata['session.id'] = sessionText;
    const service = s.resource['service.name'];
    if (typeof service === 'string') userMetadata['service.name'] = service;
    // A recorded exception does not fail its span (OTel: only an ERROR status does), but it is kept in
    // sight whatever the status, and names the error of a failed span whose status has no message.
    const exceptionType = E.exceptionType(s.events);
    const exceptionMessage = E.exceptionMessage(s.events);
    if (exceptionType) userMetadata['exception.type'] = clipped(exceptionType);
    if (exceptionMessage) userMetadata['exception.message'] = clipped(exceptionMessage);
    const stacktrace = E.exceptionStacktrace(s.events);
    if (stacktrace) userMetadata['exception.stacktrace'] = clipped(stacktrace, MAX_STACKTRACE_METADATA);
    const createdAt = started ? toDate(s.startTimeUnixNano) : ctx.now;
    const input = F.input(a) ?? E.input(s.events) ?? '';
    const output = F.output(a) ?? E.output(s.events) ?? null;
    const errorMessage = errorMessageOf(s);
    const tools = F.tools(a);
    if (tools !== undefined) attributes['tools'] = tools;
    const tags = F.tags(a) ?? [];
    const createdAtMicros = started ? Number((s.startTimeUnixNano / 1_000n) % 1_000n) : 0;
    const statusCode = statusCodeOf(s, errorMessage);
    // Each record written out whole, its fields in the order flattenTraces gives a record's: the same
    // shape for both ingest paths, where spreading a shared base made another per record.
    if (roots.has(s))
      records.push({
        id: traceRecordId,
        type: 'trace',
        projectId: ctx.projectId,
        runId: ctx.runId,
        traceId: traceRecordId,
        parentId: null,
        sessionId,
        name: F.traceName(a) ?? s.name,
        input: F.traceInput(a) ?? input,
        output: F.traceOutput(a) ?? output,
        createdAt,
        createdAtMicros,
        updatedAt: ctx.now,
        tags,
        userMetadata,
        statusCode,
        externalId: null,
        datasetInput: null,
        datasetOutput: null,
        datasetMetadata: {},
        metrics,
        isComplete: true,
        hasChildren: true,
        stepNumber: null,
        progressMessage: null,
        errorMessage,
        attributes: {},
        otelRootKey: otelRootKey(s),
      });
    records.push({
      id: otelSpanRecordId(s.traceId, s.spanId),
      type: typeOf(a) ?? 'workflow',
      projectId: ctx.projectId,
      runId: ctx.runId,
      traceId: traceRecordId,
      parentId: s.parentSpanId ? otelSpanRecordId(s.traceId, s.parentSpanId) : traceRecordId,
      sessionId,
      name: spanNameOf(s),
      input,
      output,
      createdAt,
      createdAtMicros,
      updatedAt: ctx.now,
      tags,
      userMetadata,
      statusCode,
      externalId: null,
      datasetInput: null,
      datasetOutput: null,
      datasetMetadata: {},
      metrics,
      isComplete: true,
      hasChildren: hasChildren.has(s.spanId),
      stepNumber: null,
      progressMessage: null,
      errorMessage,
      attributes: attributes as TypedAttributes,
    });
  }
  return records;
};

/** The resource attribute that names the project of a resource's spans (OpenInference's; Phoenix sets it). */
export const OTEL_PROJECT_ATTRIBUTE = 'openinference.project.name';

/**
 * The project the spans' resources name (OTEL_PROJECT_ATTRIBUTE), undefined when none does; Invalid
 * when they name more than one, as an export is stored in one project's log stream, whole or not at all.
 */
export const otelProjectName = (spans: ReadonlyArray<OtelSpan>): E.Either<DomainError, string | undefined> => {
  let named: string | undefined;
  for (const s of spans) {
    const name = s.resource[OTEL_PROJECT_ATTRIBUTE];
    if (typeof name !== 'string' || name === '') continue;
    if (named !== undefined && name !== named)
      return E.left(invalid([], `this export's resources name two projects (${OTEL_PROJECT_ATTRIBUTE} "${named}" and "${name}"): send each project's spans in an export of its own`));
    named = name;
  }
  return E.right(named);
};
