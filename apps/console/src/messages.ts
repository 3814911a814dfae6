// Reading a span's input or output as people read it: chat messages in the shapes LLM clients send
// (OpenAI's messages and choices, OpenInference's request bodies, GenAI conventions' parts), else JSON,
// else text.

export interface ChatMessage {
  readonly role: string;
  /** The message's text, its parts joined; empty when it carries only tool calls. */
  readonly text: string;
  /** Tool calls the message makes, by function name with their arguments as text. */
  readonly toolCalls: ReadonlyArray<{ readonly name: string; readonly arguments: string }>;
  /** Parts that are not text (images, files), as JSON: shown, not dropped. */
  readonly other: ReadonlyArray<unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const textOfPart = (part: unknown): string | undefined => {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return undefined;
  // OpenAI's {type: 'text', text}, GenAI conventions' {type: 'text', content}.
  if (typeof part['text'] === 'string') return part['text'];
  if (part['type'] === 'text' && typeof part['content'] === 'string') return part['content'];
  return undefined;
};

const argumentsText = (args: unknown): string => (typeof args === 'string' ? args : JSON.stringify(args ?? null));

const toolCallsOf = (message: Record<string, unknown>, parts: ReadonlyArray<unknown>): ChatMessage['toolCalls'] => {
  const calls: Array<{ name: string; arguments: string }> = [];
  const list = message['tool_calls'];
  if (Array.isArray(list))
    for (const call of list) {
      if (!isObject(call)) continue;
      const fn = isObject(call['function']) ? call['function'] : call;
      calls.push({ name: String(fn['name'] ?? 'tool'), arguments: argumentsText(fn['arguments']) });
    }
  for (const part of parts)
    if (isObject(part) && part['type'] === 'tool_call') calls.push({ name: String(part['name'] ?? 'tool'), arguments: argumentsText(part['arguments']) });
  return calls;
};

/** One message, when `value` is one: a `role` and content (text, parts or nothing). */
const messageOf = (value: unknown): ChatMessage | undefined => {
  if (!isObject(value) || typeof value['role'] !== 'string') return undefined;
  const content = value['content'] ?? value['parts'];
  const parts: unknown[] = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  const texts: string[] = [];
  const other: unknown[] = [];
  for (const part of parts) {
    const text = textOfPart(part);
    if (text !== undefined) texts.push(text);
    else if (!(isObject(part) && part['type'] === 'tool_call')) other.push(part);
  }
  return { role: value['role'], text: texts.join('\n'), toolCalls: toolCallsOf(value, parts), other };
};

const allMessages = (list: ReadonlyArray<unknown>): ChatMessage[] | undefined => {
  if (list.length === 0) return undefined;
  const messages = list.map(messageOf);
  return messages.every((m): m is ChatMessage => m !== undefined) ? messages : undefined;
};

/**
 * The conversation a value holds, or undefined when it is not one: a list of messages, one message, a
 * request body with `messages`, or a completion with `choices[].message`. A value given as JSON text is
 * read as its JSON.
 */
export const chatMessagesOf = (value: unknown): ChatMessage[] | undefined => {
  if (typeof value === 'string') {
    const trimmed = value.trim();
    if (!(trimmed.startsWith('[') || trimmed.startsWith('{'))) return undefined;
    try {
      return chatMessagesOf(JSON.parse(trimmed));
    } catch {
      return undefined;
    }
  }
  if (Array.isArray(value)) return allMessages(value);
  if (!isObject(value)) return undefined;
  const single = messageOf(value);
  if (single) return [single];
  if (Array.isArray(value['messages'])) return allMessages(value['messages']);
  if (Array.isArray(value['choices'])) return allMessages(value['choices'].map((c) => (isObject(c) ? (c['message'] ?? c['delta']) : c)));
  return undefined;
};

/** A value's JSON, when it is a structure (or JSON text of one); undefined for plain text and scalars. */
export const structureOf = (value: unknown): object | undefined => {
  if (typeof value === 'object' && value !== null) return value;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  if (!(trimmed.startsWith('[') || trimmed.startsWith('{'))) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
};

/** One line of a value for a table cell: a conversation's last message, a structure's compact JSON, text as it is. */
export const previewOf = (value: unknown): string => {
  if (value === null || value === undefined) return '';
  const messages = chatMessagesOf(value);
  if (messages) {
    const last = messages[messages.length - 1]!;
    return `${last.role}: ${last.text || last.toolCalls.map((c) => `${c.name}(…)`).join(', ')}`;
  }
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
};
