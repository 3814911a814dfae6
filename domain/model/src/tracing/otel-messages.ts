// The messages and tools of an LLM call, read from each convention's attributes and built in the shape
// the origin's SDKs send for an llm span: input a list of messages, output one message, each
// `{role, content, tool_calls?, tool_call_id?}` with text content, tools a list of OpenAI-style
// definitions. Pure: no decoding, no I/O.
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../shared/json-depth';
import type { Json } from './log-record';

/** An attribute value as the OTLP decoders give it (see OtelValue in otel.ts). */
type Value = string | number | boolean | null | ReadonlyArray<Value> | { readonly [k: string]: Value };
type Attributes = Readonly<Record<string, Value>>;

/** A tool call as the SDKs send it: the arguments are JSON text, as the model wrote them. */
export interface ChatToolCall {
  readonly id?: string;
  readonly function: { readonly name: string; readonly arguments: string };
}

/** A message as the SDKs send it; the content is text (parts that are not text are their JSON). */
export interface ChatMessage {
  readonly role: string;
  readonly content: string;
  readonly tool_call_id?: string;
  readonly tool_calls?: ReadonlyArray<ChatToolCall>;
}

type Obj = { readonly [k: string]: Json };
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const text = (v: Value | Json | undefined): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
/** A value as message text: text as it is, anything else as its JSON. */
const asText = (v: Json | undefined): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v));

/** JSON text's document when it parses (and nests no deeper than a request body may), else undefined. */
export const parsedJson = (v: string): Json | undefined => {
  try {
    const doc = JSON.parse(v) as Json;
    return nestsDeeperThan(doc, MAX_JSON_DEPTH) ? undefined : doc;
  } catch {
    return undefined;
  }
};
/** A structured attribute as it is, or the document its JSON text holds. */
const document = (v: Value | undefined): Json | undefined => (typeof v === 'string' ? parsedJson(v) : v === undefined ? undefined : (v as Json));

/**
 * An attributes map's keys, listed once: a span's attributes are read for several flattened lists (the
 * messages, the tools, each convention's), and listing its keys for each made an array every time.
 */
const keysOf = new WeakMap<Attributes, ReadonlyArray<string>>();
export const attributeKeys = (a: Attributes): ReadonlyArray<string> => {
  let keys = keysOf.get(a);
  if (keys === undefined) keysOf.set(a, (keys = Object.keys(a)));
  return keys;
};

/**
 * The entries of a flattened list (`prefix.0.role`, `prefix.0.tool_calls.1.name`, …): each index's
 * attributes keyed by what follows `prefix.<index>.`, in index order. One pass over the attributes.
 */
const NONE: ReadonlyArray<Attributes> = Object.freeze([]);
const indexed = (a: Attributes, prefix: string): ReadonlyArray<Attributes> => {
  const start = `${prefix}.`;
  const byIndex = new Map<number, Record<string, Value>>();
  for (const key of attributeKeys(a)) {
    if (!key.startsWith(start)) continue;
    // `<digits>.<rest>`, read without a regular expression: this runs for every attribute of every span.
    const dot = key.indexOf('.', start.length);
    const v = a[key];
    if (dot <= start.length || dot - start.length > 9 || dot === key.length - 1 || v === undefined || v === null) continue;
    let index = 0;
    for (let i = start.length; i < dot; i++) {
      const digit = key.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) {
        index = -1;
        break;
      }
      index = index * 10 + digit;
    }
    if (index < 0) continue;
    let entry = byIndex.get(index);
    if (entry === undefined) byIndex.set(index, (entry = Object.create(null) as Record<string, Value>));
    entry[key.slice(dot + 1)] = v;
  }
  // Most lists asked for are not there (each convention's, on every span): answered without an array made.
  if (byIndex.size === 0) return NONE;
  return [...byIndex.entries()].sort(([x], [y]) => x - y).map(([, entry]) => entry);
};

const toolCall = (id: string | undefined, name: string | undefined, args: Json | undefined): ChatToolCall => ({
  ...(id === undefined ? {} : { id }),
  function: { name: name ?? '', arguments: args === undefined ? '' : asText(args) },
});

const message = (role: string, content: string, toolCalls: ReadonlyArray<ChatToolCall>, toolCallId: string | undefined): ChatMessage => ({
  role,
  content,
  ...(toolCallId === undefined ? {} : { tool_call_id: toolCallId }),
  ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }),
});

/** An output: the one message there is, as the SDKs send it; the list when a call answered with several (choices). */
export const outputOf = (messages: ReadonlyArray<ChatMessage> | undefined): Json | undefined =>
  messages === undefined || messages.length === 0 ? undefined : messages.length === 1 ? (messages[0] as unknown as Json) : (messages as unknown as Json);

// OpenInference: llm.input_messages.<i>.message.{role, content, contents.<j>.message_content.*,
// tool_calls.<k>.tool_call.{id, function.name, function.arguments}, tool_call_id, function_call_*}.

/** A content part as its text, or as the OpenAI request part it stands for (an image), in JSON. */
const openInferencePart = (part: Attributes): string => {
  const partText = text(part['message_content.text']);
  if (partText !== undefined) return partText;
  const url = text(part['message_content.image.image.url']);
  if (url !== undefined) return JSON.stringify({ type: 'image_url', image_url: { url } });
  return JSON.stringify(part);
};

const openInferenceMessage = (m: Attributes, defaultRole: string): ChatMessage => {
  const contents = indexed(m, 'message.contents');
  const content = text(m['message.content']) ?? contents.map(openInferencePart).join('');
  const calls = indexed(m, 'message.tool_calls').map((c) =>
    toolCall(text(c['tool_call.id']), text(c['tool_call.function.name']), text(c['tool_call.function.arguments'])),
  );
  // The legacy function call of OpenAI's API is a tool call without an id.
  const functionName = text(m['message.function_call_name']);
  if (functionName !== undefined) calls.push(toolCall(undefined, functionName, text(m['message.function_call_arguments_json'])));
  return message(text(m['message.role']) ?? defaultRole, content, calls, text(m['message.tool_call_id']));
};

/** OpenInference's messages under `prefix` (llm.input_messages, llm.output_messages); undefined when there are none. */
export const openInferenceMessages = (a: Attributes, prefix: string, defaultRole: string): ReadonlyArray<ChatMessage> | undefined => {
  const entries = indexed(a, prefix);
  return entries.length === 0 ? undefined : entries.map((m) => openInferenceMessage(m, defaultRole));
};

/** A tool definition as its JSON document; text that is not JSON stays text. */
const definition = (v: Value): Json => (typeof v === 'string' ? parsedJson(v) ?? v : (v as Json));

/** OpenInference's llm.tools.<i>.tool.json_schema: each an OpenAI tool definition, in JSON. */
export const openInferenceTools = (a: Attributes): ReadonlyArray<Json> | undefined => {
  const tools = indexed(a, 'llm.tools').flatMap((t) => (t['tool.json_schema'] === undefined ? [] : [definition(t['tool.json_schema'])]));
  return tools.length === 0 ? undefined : tools;
};

// GenAI semantic conventions 1.37: gen_ai.input.messages / gen_ai.output.messages, a list of
// {role, parts: [{type: text|tool_call|tool_call_response|…}], finish_reason?}, in JSON;
// gen_ai.system_instructions, a list of parts; gen_ai.tool.definitions, a list of definitions.

/** Parts as one message: text parts are its content, tool calls its tool_calls, a tool's response its content and tool_call_id. */
const partsMessage = (role: string, parts: ReadonlyArray<Json>): ChatMessage => {
  let content = '';
  let toolCallId: string | undefined;
  const calls: ChatToolCall[] = [];
  for (const part of parts) {
    if (!isObj(part)) {
      content += asText(part);
      continue;
    }
    switch (part['type']) {
      case 'text':
        content += asText(part['content']);
        break;
      case 'tool_call':
        calls.push(toolCall(text(part['id']), text(part['name']), part['arguments']));
        break;
      case 'tool_call_response':
        toolCallId ??= text(part['id']);
        content += asText(part['response'] ?? part['result']);
        break;
      default:
        // Media, reasoning and parts of later versions: kept as their JSON, as the SDKs keep a part that is not text.
        content += JSON.stringify(part);
    }
  }
  return message(role, content, calls, toolCallId);
};

/** A list of GenAI messages (each with `role` and `parts`) as messages; undefined when the value is not one. */
export const genAiMessages = (v: Value | undefined): ReadonlyArray<ChatMessage> | undefined => {
  const doc = document(v);
  if (!Array.isArray(doc) || doc.length === 0) return undefined;
  const messages: ChatMessage[] = [];
  for (const m of doc) {
    if (!isObj(m) || typeof m['role'] !== 'string' || !Array.isArray(m['parts'])) return undefined;
    messages.push(partsMessage(m['role'], m['parts']));
  }
  return messages;
};

/** gen_ai.system_instructions (a list of parts, or text) as the system message that leads the input. */
export const genAiSystemMessage = (v: Value | undefined): ChatMessage | undefined => {
  if (typeof v === 'string') {
    const doc = parsedJson(v);
    return Array.isArray(doc) ? partsMessage('system', doc) : message('system', v, [], undefined);
  }
  return Array.isArray(v) ? partsMessage('system', v as ReadonlyArray<Json>) : undefined;
};

/** The finish reason of a GenAI output message list: the first message's. */
export const genAiFinishReason = (v: Value | undefined): string | undefined => {
  const doc = document(v);
  return Array.isArray(doc) && isObj(doc[0]) ? text(doc[0]['finish_reason']) : undefined;
};

/** A definition `{type, name, description, parameters}` in OpenAI's shape `{type, function: {name, description, parameters}}`. */
const openAiTool = (d: Json): Json => {
  if (!isObj(d) || isObj(d['function']) || typeof d['name'] !== 'string') return d;
  const { type, ...fn } = d;
  return { type: type ?? 'function', function: fn };
};

/** gen_ai.tool.definitions as OpenAI tool definitions. */
export const genAiTools = (v: Value | undefined): ReadonlyArray<Json> | undefined => {
  const doc = document(v);
  return Array.isArray(doc) && doc.length > 0 ? doc.map(openAiTool) : undefined;
};

// OpenLLMetry (GenAI conventions before 1.37, flattened): gen_ai.prompt.<i>.{role, content,
// tool_call_id, tool_calls.<k>.{id, name, arguments}}, gen_ai.completion.<i>.{…, finish_reason};
// tools in llm.request.functions.<i>.{name, description, parameters}.

/** OpenLLMetry's messages under `prefix` (gen_ai.prompt, gen_ai.completion); undefined when there are none. */
export const openLlmetryMessages = (a: Attributes, prefix: string, defaultRole: string): ReadonlyArray<ChatMessage> | undefined => {
  const entries = indexed(a, prefix);
  if (entries.length === 0) return undefined;
  return entries.map((m) =>
    message(
      text(m['role']) ?? defaultRole,
      asText(m['content'] as Json | undefined),
      indexed(m, 'tool_calls').map((c) => toolCall(text(c['id']), text(c['name']), text(c['arguments']))),
      text(m['tool_call_id']),
    ),
  );
};

/** OpenLLMetry's llm.request.functions.<i>.* as OpenAI tool definitions. */
export const openLlmetryTools = (a: Attributes): ReadonlyArray<Json> | undefined => {
  const tools = indexed(a, 'llm.request.functions').flatMap((f): Json[] => {
    const name = text(f['name']);
    if (name === undefined) return [];
    const description = text(f['description']);
    const parameters = f['parameters'] === undefined ? undefined : definition(f['parameters']);
    return [{ type: 'function', function: { name, ...(description === undefined ? {} : { description }), ...(parameters === undefined ? {} : { parameters }) } }];
  });
  return tools.length === 0 ? undefined : tools;
};

// Messages sent whole, as JSON (Langfuse's observation input and output, the GenAI prompt events,
// the Vercel AI SDK's prompt): a list of chat messages, OpenAI's, GenAI's or the AI SDK's.

/** An OpenAI-style message (`content` text or parts, `tool_calls`) as a message; undefined when it is not one. */
const chatMessage = (m: Json, defaultRole: string): ChatMessage | undefined => {
  if (!isObj(m)) return undefined;
  const role = text(m['role']) ?? defaultRole;
  if (Array.isArray(m['parts'])) return partsMessage(role, m['parts']);
  if (!('content' in m) && !Array.isArray(m['tool_calls'])) return undefined;
  const calls = (Array.isArray(m['tool_calls']) ? m['tool_calls'] : []).flatMap((call): ChatToolCall[] => {
    if (!isObj(call)) return [];
    const fn = isObj(call['function']) ? call['function'] : call;
    return [toolCall(text(call['id']), text(fn['name']), fn['arguments'])];
  });
  let toolCallId = text(m['tool_call_id']);
  const c = m['content'];
  if (!Array.isArray(c)) return message(role, asText(c), calls, toolCallId);
  // Content parts: OpenAI's (`{type: 'text', text}`, images) and the Vercel AI SDK's, whose tool calls and results are parts too.
  let content = '';
  for (const p of c) {
    if (isObj(p) && p['type'] === 'tool-call') calls.push(toolCall(text(p['toolCallId']), text(p['toolName']), p['input'] ?? p['args']));
    else if (isObj(p) && p['type'] === 'tool-result') {
      toolCallId ??= text(p['toolCallId']);
      content += asText(p['output'] ?? p['result']);
    } else content += isObj(p) && typeof p['text'] === 'string' ? p['text'] : asText(p);
  }
  return message(role, content, calls, toolCallId);
};

/**
 * The Vercel AI SDK's response of a provider call (ai.response.text and ai.response.toolCalls, a list of
 * `{toolCallId, toolName, input}` in JSON) as the assistant's message; undefined when it gave neither.
 */
export const vercelResponse = (responseText: string | undefined, toolCalls: Value | undefined): ChatMessage | undefined => {
  const doc = document(toolCalls);
  const calls = (Array.isArray(doc) ? doc : []).flatMap((call): ChatToolCall[] =>
    isObj(call) ? [toolCall(text(call['toolCallId']), text(call['toolName']), call['input'] ?? call['args'])] : [],
  );
  return responseText === undefined && calls.length === 0 ? undefined : message('assistant', responseText ?? '', calls, undefined);
};

/** A JSON document that is a list of chat messages (or one message), as messages; undefined when it is not. */
export const chatMessages = (doc: Json | undefined, defaultRole: string): ReadonlyArray<ChatMessage> | undefined => {
  const list = Array.isArray(doc) ? doc : doc === undefined ? [] : [doc];
  if (list.length === 0) return undefined;
  const messages: ChatMessage[] = [];
  for (const m of list) {
    const built = chatMessage(m, defaultRole);
    if (built === undefined) return undefined;
    messages.push(built);
  }
  return messages;
};
