// The OpenAI-compatible judge model against a real HTTP server (the testkit's stub): what it sends,
// what it reads back, and how each fault is reported, never with the token in it.
import { OpenAiStub, judges } from '@tracelight/testkit';
import type { JudgeRequest } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import { OpenAiJudgeModel, scrubbed } from './openai-judge-model';

const TOKEN = 'sk-test-VERY-secret-token-1234';
const request = (stub: OpenAiStub, over: Partial<JudgeRequest> = {}): JudgeRequest => ({
  gateway: { endpoint: stub.url, token: TOKEN, key: 'owner-1' },
  model: 'judge-model',
  messages: [
    { role: 'system', content: 'You judge.' },
    { role: 'user', content: 'Is "hi" rude?' },
  ],
  n: 3,
  schema: { type: 'object', properties: { rating: { type: 'boolean' } } },
  ...over,
});

describe('OpenAiJudgeModel', () => {
  let stub: OpenAiStub;
  beforeEach(async () => {
    stub = await OpenAiStub.start();
  });
  afterEach(() => stub.close());

  it('asks {endpoint}/chat/completions for n answers with the bearer token, model and schema, and reads them and their usage', async () => {
    stub.answerWith(judges(true, true, false));
    const model = new OpenAiJudgeModel({ timeoutMs: 5_000, concurrencyPerGateway: 4 });
    const reply = await model.complete(request(stub))();
    expect(reply).toEqual(
      E.right({
        answers: ['{"explanation":"stub says true","rating":true}', '{"explanation":"stub says true","rating":true}', '{"explanation":"stub says false","rating":false}'],
        usage: { prompt: expect.any(Number), completion: expect.any(Number) },
      }),
    );
    const [sent] = stub.completions;
    expect(sent).toMatchObject({ path: '/v1/chat/completions', model: 'judge-model', n: 3, bearer: TOKEN, messages: request(stub).messages });
    expect(sent!.body['response_format']).toEqual({ type: 'json_schema', json_schema: { name: 'judgment', schema: request(stub).schema, strict: false } });
  });

  it('reports 429 as retryable after its Retry-After, 5xx as retryable, 4xx as permanent, none with the token', async () => {
    const model = new OpenAiJudgeModel({ timeoutMs: 5_000, concurrencyPerGateway: 4 });
    stub.failNext({ kind: 'status', status: 429, retryAfter: '2', message: 'slow down' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway answered 429: slow down', retryAfterMs: 2000 }));
    stub.failNext({ kind: 'status', status: 503 });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway answered 503: stub fault 503' }));
    stub.failNext({ kind: 'status', status: 401, message: `Incorrect API key provided: ${TOKEN}. Authorization: Bearer ${TOKEN}` });
    const refused = await model.complete(request(stub))();
    expect(refused).toEqual(E.left({ kind: 'permanent', message: 'the gateway answered 401: Incorrect API key provided: [redacted]. Authorization: Bearer [redacted]' }));
  });

  it('ends a call that hangs at its timeout, and reads a body that is no completion as retryable', async () => {
    const model = new OpenAiJudgeModel({ timeoutMs: 300, concurrencyPerGateway: 4 });
    stub.failNext({ kind: 'hang' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway did not answer within 300 ms' }));
    stub.failNext({ kind: 'malformed' });
    const malformed = await model.complete(request(stub))();
    expect(E.isLeft(malformed) && malformed.left.kind).toBe('retryable');
    expect(E.isLeft(malformed) && malformed.left.message).toMatch(/^the gateway's answer could not be read: /);
  });

  it('reports a gateway that cannot be reached as retryable', async () => {
    const model = new OpenAiJudgeModel({ timeoutMs: 2_000, concurrencyPerGateway: 4 });
    const url = stub.url;
    await stub.close();
    const reply = await model.complete({ ...request(stub), gateway: { endpoint: url, token: TOKEN, key: 'k' } })();
    expect(E.isLeft(reply) && reply.left.kind).toBe('retryable');
    expect(E.isLeft(reply) && reply.left.message).toBe('could not reach the gateway: ECONNREFUSED');
    stub = await OpenAiStub.start(); // for afterEach
  });

  it('holds at most the bound of calls in flight to one gateway, each gateway its own', async () => {
    await stub.close();
    stub = await OpenAiStub.start({ delayMs: 100 });
    const model = new OpenAiJudgeModel({ timeoutMs: 10_000, concurrencyPerGateway: 2 });
    const replies = await Promise.all(Array.from({ length: 6 }, () => model.complete(request(stub))()));
    expect(replies.every(E.isRight)).toBe(true);
    expect(stub.peakInFlight).toBe(2);
    const both = await Promise.all(
      Array.from({ length: 8 }, (_, i) => model.complete(request(stub, { gateway: { endpoint: stub.url, token: TOKEN, key: `owner-${i % 2}` } }))()),
    );
    expect(both.every(E.isRight)).toBe(true);
    expect(stub.peakInFlight).toBe(4);
    expect(model.held()).toEqual({ entries: 0, size: 0 });
  });

  it('scrubs a secret wherever it appears and bounds the text kept', () => {
    expect(scrubbed(`a ${TOKEN} b ${TOKEN}`, TOKEN)).toBe('a [redacted] b [redacted]');
    expect(scrubbed('x'.repeat(1000), TOKEN)).toHaveLength(301);
  });
});
