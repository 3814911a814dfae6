// A deterministic OpenAI-compatible server for tests and benchmarks: real HTTP on 127.0.0.1 (a free
// port), `POST /v1/chat/completions` answered by rules a test sets (text or tool calls, whole or streamed
// as server-sent events), every request recorded (its messages, model, `n`, bearer token), answers held
// back until a test releases them, and faults injected on demand: an error status (429 with
// Retry-After, 500), a hang, a body that is no JSON, an answer of the wrong shape.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubMessage {
  readonly role: string;
  /** Text; null on an assistant turn that only calls tools. */
  readonly content: string | null;
}

/** A request as the stub received it. */
export interface StubRequest {
  readonly path: string;
  readonly model: string;
  readonly messages: ReadonlyArray<StubMessage>;
  readonly n: number;
  /** The bearer token of `Authorization: Bearer …` ('' without one). */
  readonly bearer: string;
  readonly body: Readonly<Record<string, unknown>>;
}

/** What one request is answered with instead of its rule's answer, once. */
export type StubFault =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: string; readonly message?: string }
  /** Never answered (until the stub closes): the caller's timeout must end it. */
  | { readonly kind: 'hang' }
  /** A 200 whose body is not JSON. */
  | { readonly kind: 'malformed' }
  /** A completion whose content is JSON without the value asked for. */
  | { readonly kind: 'wrong_schema' }
  /** An answer of this status, content type and body exactly (an HTML error page, a proxy's text). */
  | { readonly kind: 'raw'; readonly status: number; readonly contentType: string; readonly body: string };

/** A function call an answer makes in place of text (`arguments` as JSON text, as the API sends it). */
export interface StubToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** A choice's message: its text, or tool calls (finish_reason `tool_calls`). */
export type StubReply = string | { readonly toolCalls: ReadonlyArray<StubToolCall> };

/** The message of choice `index` (0 to n − 1) of a request. */
export type StubRule = (request: StubRequest, index: number) => StubReply;

/** A judge's answer as ChainPoll asks for it: `{"explanation": …, "rating": value}`. */
export const judgeAnswer = (value: unknown, explanation = `stub says ${JSON.stringify(value)}`, valueField = 'rating', explanationField = 'explanation'): string =>
  JSON.stringify({ [explanationField]: explanation, [valueField]: value });

/** Choice i answers values[i] (cycling): `judges(true, true, false)` is ChainPoll's yes/yes/no. */
export const judges =
  (...values: ReadonlyArray<unknown>): StubRule =>
  (_request, index) =>
    judgeAnswer(values[index % values.length]);

/** The text of a request's last user message: where the record's fields are. */
export const lastUserText = (request: StubRequest): string => [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';

export interface StubOptions {
  /** How long each answer waits before it is sent (a model's latency): 0 by default. */
  readonly delayMs?: number;
  /** At most this many choices per answer, whatever `n` asks (a provider that ignores `n`). */
  readonly maxChoices?: number;
  /** The port (0, the default: a free one). */
  readonly port?: number;
  /** The `usage` of every answer; by default a token per four characters of the prompt and of the answer. */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
}

const tokensOf = (text: string): number => Math.ceil(text.length / 4);
const textOf = (reply: StubReply): string => (typeof reply === 'string' ? reply : JSON.stringify(reply.toolCalls));
const messageOf = (reply: StubReply) =>
  typeof reply === 'string'
    ? { role: 'assistant', content: reply }
    : { role: 'assistant', content: null, tool_calls: reply.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) };
const finishOf = (reply: StubReply) => (typeof reply === 'string' ? 'stop' : 'tool_calls');

/**
 * Under Jest, registers the stub where the test environment (test/support/environment.js) finds what a
 * test file left running and stops it once the file is done: a stub left listening by a failing test
 * would keep Jest from exiting. Elsewhere (the stub run on its own) there is no registry and nothing to do.
 */
const trackInTests = (stub: OpenAiStub): (() => void) => {
  const registry = (globalThis as { __tracelightStarted?: Set<{ name: string; stop(): Promise<unknown> }> }).__tracelightStarted;
  if (registry === undefined) return () => undefined;
  const entry = { name: `an OpenAI-compatible stub (${stub.url})`, stop: () => stub.close() };
  registry.add(entry);
  return () => void registry.delete(entry);
};

export class OpenAiStub {
  /** Every request received, in order. */
  readonly requests: StubRequest[] = [];
  private rule: StubRule = judges(true);
  private readonly faults: StubFault[] = [];
  private readonly hanging = new Set<ServerResponse>();
  /** While held, answers wait here (each request is recorded first); release() lets them go. */
  private held: Array<() => void> | undefined;
  private inFlight = 0;
  /** The most requests it has been answering at once (a bound on callers' concurrency shows here). */
  peakInFlight = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly options: StubOptions,
  ) {}

  /** Starts a stub on 127.0.0.1; `url` is the base URL to give as a gateway's endpoint (`…/v1`). */
  static async start(options: StubOptions = {}): Promise<OpenAiStub> {
    let stub: OpenAiStub | undefined;
    const server = createServer((req, res) => void stub?.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    stub = new OpenAiStub(server, `http://127.0.0.1:${port}/v1`, options);
    stub.untrack = trackInTests(stub);
    return stub;
  }

  private untrack = (): void => undefined;

  /** Every choice from now on is answered by `rule`. */
  answerWith(rule: StubRule): this {
    this.rule = rule;
    return this;
  }

  /** The next `times` requests get `fault` (after faults queued before), then the rule answers again. */
  failNext(fault: StubFault, times = 1): this {
    for (let i = 0; i < times; i++) this.faults.push(fault);
    return this;
  }

  /**
   * Holds every answer back (requests are still received and recorded) until the function returned is
   * called: a judge that has been asked and has not answered yet, for as long as a test needs.
   */
  hold(): () => void {
    const waiting: Array<() => void> = (this.held ??= []);
    return () => {
      if (this.held === waiting) this.held = undefined;
      for (const go of waiting.splice(0)) go();
    };
  }

  /** Requests with a chat completion body (not those that were refused before one was read). */
  get completions(): ReadonlyArray<StubRequest> {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions'));
  }

  async close(): Promise<void> {
    this.untrack();
    for (const go of this.held?.splice(0) ?? []) go();
    this.held = undefined;
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    this.peakInFlight = Math.max(this.peakInFlight, this.inFlight);
    res.on('close', () => (this.inFlight -= 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    } catch {
      // recorded with an empty body
    }
    const auth = req.headers['authorization'] ?? '';
    const request: StubRequest = {
      path: (req.url ?? '').split('?')[0]!,
      model: typeof body['model'] === 'string' ? body['model'] : '',
      messages: Array.isArray(body['messages']) ? (body['messages'] as StubMessage[]) : [],
      n: typeof body['n'] === 'number' ? body['n'] : 1,
      bearer: auth.startsWith('Bearer ') ? auth.slice('Bearer '.length) : '',
      body,
    };
    this.requests.push(request);
    const send = (status: number, payload: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(payload);
    };
    if (req.method !== 'POST' || !request.path.endsWith('/chat/completions'))
      return send(404, JSON.stringify({ error: { message: `no route ${req.method} ${request.path}`, type: 'invalid_request_error' } }));
    if ((this.options.delayMs ?? 0) > 0) await new Promise((resolve) => setTimeout(resolve, this.options.delayMs));
    if (this.held !== undefined) await new Promise<void>((resolve) => this.held!.push(resolve));
    const fault = this.faults.shift();
    if (fault?.kind === 'hang') {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    if (fault?.kind === 'status')
      return send(
        fault.status,
        JSON.stringify({ error: { message: fault.message ?? `stub fault ${fault.status}`, type: 'stub_error' } }),
        fault.retryAfter !== undefined ? { 'retry-after': fault.retryAfter } : {},
      );
    if (fault?.kind === 'malformed') return send(200, '{"id": "chatcmpl-stub", "choices": [');
    if (fault?.kind === 'raw') {
      res.writeHead(fault.status, { 'content-type': fault.contentType });
      return void res.end(fault.body);
    }
    const n = Math.min(Math.max(1, request.n), this.options.maxChoices ?? Number.POSITIVE_INFINITY);
    const replies = Array.from({ length: n }, (_, i): StubReply => (fault?.kind === 'wrong_schema' ? JSON.stringify({ verdict: 'not what was asked' }) : this.rule(request, i)));
    const prompt = tokensOf(request.messages.map((m) => m.content ?? '').join('\n'));
    const completion = replies.reduce((sum, r) => sum + tokensOf(textOf(r)), 0);
    const usage = this.options.usage ?? { prompt_tokens: prompt, completion_tokens: completion };
    const counted = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
    const id = `chatcmpl-stub-${this.requests.length}`;
    const created = Math.floor(Date.now() / 1000);
    if (body['stream'] === true) return this.stream(res, { id, created, model: request.model, replies, usage: this.wantsStreamUsage(body) ? counted : undefined });
    send(
      200,
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: request.model,
        choices: replies.map((reply, index) => ({ index, message: messageOf(reply), finish_reason: finishOf(reply) })),
        usage: counted,
      }),
    );
  }

  private wantsStreamUsage(body: Record<string, unknown>): boolean {
    const options = body['stream_options'];
    return typeof options === 'object' && options !== null && (options as Record<string, unknown>)['include_usage'] === true;
  }

  /**
   * An answer as `chat.completion.chunk` server-sent events, as the API streams one: each choice's text
   * in two pieces (or its tool calls in one), then its finish, then, when `stream_options.include_usage`
   * asked for it, a last chunk with no choices and the usage; then `[DONE]`.
   */
  private stream(res: ServerResponse, a: { id: string; created: number; model: string; replies: ReadonlyArray<StubReply>; usage: unknown }): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      res.write(`data: ${JSON.stringify({ id: a.id, object: 'chat.completion.chunk', created: a.created, model: a.model, choices, ...extra })}\n\n`);
    a.replies.forEach((reply, index) => {
      if (typeof reply === 'string') {
        const half = Math.floor(reply.length / 2);
        event([{ index, delta: { role: 'assistant', content: reply.slice(0, half) }, finish_reason: null }]);
        event([{ index, delta: { content: reply.slice(half) }, finish_reason: null }]);
      } else {
        const calls = reply.toolCalls.map((c, i) => ({ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));
        event([{ index, delta: { role: 'assistant', content: null, tool_calls: calls }, finish_reason: null }]);
      }
      event([{ index, delta: {}, finish_reason: finishOf(reply) }]);
    });
    if (a.usage !== undefined) event([], { usage: a.usage });
    res.end('data: [DONE]\n\n');
  }
}
