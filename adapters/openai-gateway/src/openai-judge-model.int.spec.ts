// The OpenAI-compatible judge model against a real HTTP server (the testkit's stub): what it sends,
// what it reads back, how each fault is reported, never with the token in it, and where it may connect.
import { OpenAiStub, judges } from '@tracelight/testkit';
import type { JudgeRequest } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolve } from './guarded-fetch';
import { type OpenAiGatewayOptions, OpenAiJudgeModel, scrubbed } from './openai-judge-model';

const TOKEN = 'sk-test-VERY-secret-token-1234';
/** The stub listens on 127.0.0.1, which judges may call only where the operator allows it. */
const LOCAL = ['127.0.0.1/32'];
const models: OpenAiJudgeModel[] = [];
const judgeModel = (options: Partial<OpenAiGatewayOptions> = {}): OpenAiJudgeModel => {
  const model = new OpenAiJudgeModel({ timeoutMs: 5_000, concurrencyPerGateway: 4, allowedNetworks: LOCAL, ...options });
  models.push(model);
  return model;
};
afterAll(async () => {
  for (const m of models) await m.close();
});
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
    const model = judgeModel();
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
    const model = judgeModel();
    stub.failNext({ kind: 'status', status: 429, retryAfter: '2', message: 'slow down' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway answered 429: slow down', retryAfterMs: 2000 }));
    stub.failNext({ kind: 'status', status: 503 });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway answered 503: stub fault 503' }));
    stub.failNext({ kind: 'status', status: 401, message: `Incorrect API key provided: ${TOKEN}. Authorization: Bearer ${TOKEN}` });
    const refused = await model.complete(request(stub))();
    expect(refused).toEqual(E.left({ kind: 'permanent', message: 'the gateway answered 401: Incorrect API key provided: [redacted]. Authorization: Bearer [redacted]' }));
  });

  it('ends a call that hangs at its timeout, and reads a body that is no completion as retryable', async () => {
    const model = judgeModel({ timeoutMs: 300 });
    stub.failNext({ kind: 'hang' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway did not answer within 300 ms' }));
    stub.failNext({ kind: 'malformed' });
    const malformed = await model.complete(request(stub))();
    expect(E.isLeft(malformed) && malformed.left.kind).toBe('retryable');
    // The parser's words would quote the body: only the kind of failure is told.
    expect(E.isLeft(malformed) && malformed.left.message).toBe("the gateway's answer could not be read as a chat completion (SyntaxError)");
  });

  it('reports a gateway that cannot be reached as retryable', async () => {
    const model = judgeModel({ timeoutMs: 2_000 });
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
    const model = judgeModel({ timeoutMs: 10_000, concurrencyPerGateway: 2 });
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
    // Scrubbed before it is cut: a token across the cut is not left half there.
    expect(scrubbed(`${'x'.repeat(290)}${TOKEN}`, TOKEN)).toBe(`${'x'.repeat(290)}[redacted]`);
  });

  it('scrubs the token from a provider\'s message in its encoded forms too', async () => {
    const token = 'sk-BOBSECRET-0123456789abcdef+/=xyz';
    const encoded = [encodeURIComponent(token), new URLSearchParams({ k: token }).toString().slice(2), Buffer.from(token).toString('base64'), Buffer.from(`Bearer ${token}`).toString('base64url')];
    stub.failNext({ kind: 'status', status: 401, message: `bad key ${encoded.join(' ')}` });
    const refused = await judgeModel().complete({ ...request(stub), gateway: { endpoint: stub.url, token, key: 'bob' } })();
    expect(refused).toEqual(E.left({ kind: 'permanent', message: 'the gateway answered 401: bad key [redacted] [redacted] [redacted] [redacted]' }));
  });

  it('tells of an error answer that is not the provider\'s JSON error only its status and content type', async () => {
    const model = judgeModel();
    stub.failNext({ kind: 'raw', status: 500, contentType: 'text/plain; charset=utf-8', body: 'upstream says: {"host":"10.0.0.7","admin_key":"k-123"}' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'retryable', message: 'the gateway answered 500 (body not shown: text/plain)' }));
    stub.failNext({ kind: 'raw', status: 404, contentType: 'text/html', body: '<html><body>internal admin console</body></html>' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'permanent', message: 'the gateway answered 404 (body not shown: text/html)' }));
    // JSON that is no error of the API's (a service's own answer): not shown either.
    stub.failNext({ kind: 'raw', status: 403, contentType: 'application/json', body: '{"users":[{"name":"root","password":"hunter2"}]}' });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'permanent', message: 'the gateway answered 403 (body not shown: application/json)' }));
    // The API's error shape, with the message as a string: kept, bounded.
    stub.failNext({ kind: 'raw', status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'model not found' }) });
    expect(await model.complete(request(stub))()).toEqual(E.left({ kind: 'permanent', message: 'the gateway answered 400: model not found' }));
  });
});

describe('where judges may connect', () => {
  let stub: OpenAiStub;
  beforeEach(async () => {
    stub = await OpenAiStub.start();
    stub.answerWith(judges(true));
  });
  afterEach(() => stub.close());
  const ask = (model: OpenAiJudgeModel, endpoint: string) => model.complete({ ...request(stub), gateway: { endpoint, token: TOKEN, key: 'k' } })();
  /** A DNS the test controls: each name to the addresses given. */
  const dnsOf =
    (names: Record<string, ReadonlyArray<string>>): Resolve =>
    (hostname, _options, callback) => {
      const addresses = names[hostname];
      if (addresses === undefined) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    };

  it('refuses a loopback address by default, before connecting, saying how an operator allows it', async () => {
    const reply = await ask(judgeModel({ allowedNetworks: [] }), stub.url);
    expect(reply).toEqual(
      E.left({
        kind: 'refused',
        message: "the gateway's address 127.0.0.1 is loopback: judges call public addresses only; an operator may allow it with TRACELIGHT_GATEWAY_ALLOWED_NETWORKS",
      }),
    );
    expect(stub.requests).toHaveLength(0);
  });

  it('checks the address a name resolves to when it connects (a name rebound to a private address is refused)', async () => {
    const port = new URL(stub.url).port;
    const resolve = dnsOf({ 'judge.example': ['127.0.0.1'], 'metadata.example': ['169.254.169.254'], 'mixed.example': ['10.0.0.1', '127.0.0.1'] });
    const refusing = judgeModel({ allowedNetworks: [], resolve });
    expect(await ask(refusing, `http://judge.example:${port}/v1`)).toEqual(E.left({ kind: 'refused', message: expect.stringMatching(/^the gateway's address 127\.0\.0\.1 is loopback: /) }));
    expect(await ask(refusing, `http://metadata.example:${port}/v1`)).toEqual(
      E.left({ kind: 'refused', message: expect.stringMatching(/^the gateway's address 169\.254\.169\.254 is link-local, the cloud metadata address: /) }),
    );
    expect(stub.requests).toHaveLength(0);
    // Allowed by the operator: the same name is called, at the address allowed (the private one left out).
    const allowing = judgeModel({ resolve });
    expect(E.isRight(await ask(allowing, `http://judge.example:${port}/v1`))).toBe(true);
    expect(E.isRight(await ask(allowing, `http://mixed.example:${port}/v1`))).toBe(true);
    expect(stub.requests).toHaveLength(2);
  });

  it('refuses a redirect to an address it may not call', async () => {
    // A gateway the operator allows (127.0.0.1) that redirects to another loopback address, which is not allowed.
    const port = new URL(stub.url).port;
    const redirecting: Server = createServer((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.2:${port}/v1/chat/completions` });
      res.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', resolve));
    try {
      const at = `http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/v1`;
      expect(await ask(judgeModel(), at)).toEqual(E.left({ kind: 'refused', message: expect.stringMatching(/^the gateway's address 127\.0\.0\.2 is loopback: /) }));
      expect(stub.requests).toHaveLength(0);
    } finally {
      redirecting.closeAllConnections();
      await new Promise<void>((resolve) => redirecting.close(() => resolve()));
    }
  });
});
