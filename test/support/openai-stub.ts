// A real OpenAI-compatible HTTP server on 127.0.0.1 (a free port) for clients under test: POST
// /v1/chat/completions answers a tool call when tools are offered and the last message is the user's,
// else a text answer; with `stream: true`, as server-sent events. Every request body is kept.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { track } from './started';

export interface OpenAiStub {
  /** The base URL an OpenAI client is given (`…/v1`). */
  readonly baseUrl: string;
  /** The JSON bodies received, in order. */
  readonly requests: ReadonlyArray<Record<string, unknown>>;
  stop(): Promise<void>;
}

/** What the stub answers: fixed, so that tests can name it. */
export const STUB_ANSWER = 'Sunny, 24 °C.';
export const STUB_TOOL_CALL = { id: 'call_weather_1', name: 'get_weather', arguments: '{"city":"Paris"}' };
export const STUB_USAGE = { prompt_tokens: 31, completion_tokens: 9, total_tokens: 40 };

interface Message {
  readonly role?: string;
}

const completion = (model: string, callsTool: boolean) => ({
  id: 'chatcmpl-stub',
  object: 'chat.completion',
  created: 1_700_000_000,
  model,
  choices: [
    {
      index: 0,
      message: callsTool
        ? { role: 'assistant', content: null, tool_calls: [{ id: STUB_TOOL_CALL.id, type: 'function', function: { name: STUB_TOOL_CALL.name, arguments: STUB_TOOL_CALL.arguments } }] }
        : { role: 'assistant', content: STUB_ANSWER },
      finish_reason: callsTool ? 'tool_calls' : 'stop',
    },
  ],
  usage: STUB_USAGE,
});

/** The answer as chat.completion.chunk events: the text in two pieces, then the finish and the usage. */
const chunks = (model: string): ReadonlyArray<unknown> => {
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) => ({
    id: 'chatcmpl-stub',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });
  const half = Math.floor(STUB_ANSWER.length / 2);
  return [chunk({ role: 'assistant', content: STUB_ANSWER.slice(0, half) }, null), chunk({ content: STUB_ANSWER.slice(half) }, null), chunk({}, 'stop', STUB_USAGE)];
};

export const startOpenAiStub = async (): Promise<OpenAiStub> => {
  const requests: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { model?: string; stream?: boolean; tools?: unknown[]; messages?: Message[] };
      requests.push(body);
      const model = body.model ?? 'gpt-4o-mini';
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const c of chunks(model)) res.write(`data: ${JSON.stringify(c)}\n\n`);
        res.end('data: [DONE]\n\n');
        return;
      }
      const callsTool = (body.tools?.length ?? 0) > 0 && body.messages?.at(-1)?.role === 'user';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(model, callsTool)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stop = () =>
    new Promise<void>((resolve) => {
      untrack();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  // Stopped once the test file is done, should its tests not stop it.
  const untrack = track({ name: `an OpenAI-compatible stub (port ${port})`, stop });
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, stop };
};
