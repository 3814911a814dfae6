// The OpenAI-compatible stub over real HTTP: what the suites built on it rely on, tool calls, streaming,
// fixed usage and answers held back, read as a client reads them.
import { OpenAiStub, type StubRequest, judges } from './openai-stub';

interface Choice {
  readonly index: number;
  readonly message?: { readonly content: string | null };
  readonly delta?: { readonly content?: string | null };
  readonly finish_reason: string | null;
}
interface Answer {
  readonly object: string;
  readonly choices: ReadonlyArray<Choice>;
  readonly usage?: { readonly total_tokens: number };
}

const complete = (stub: OpenAiStub, body: Record<string, unknown>) =>
  fetch(`${stub.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' }, body: JSON.stringify({ model: 'm', ...body }) });

describe('the OpenAI-compatible stub', () => {
  let stub: OpenAiStub;
  afterEach(() => stub.close());

  it('answers with tool calls where its rule says, with the usage it was given', async () => {
    stub = await OpenAiStub.start({ usage: { prompt_tokens: 31, completion_tokens: 9 } });
    stub.answerWith((r: StubRequest) => (r.body['tools'] ? { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] } : 'Sunny.'));
    const called = (await (await complete(stub, { messages: [{ role: 'user', content: 'Weather?' }], tools: [{ type: 'function' }] })).json()) as Answer;
    expect(called.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] }, finish_reason: 'tool_calls' },
    ]);
    expect(called.usage).toEqual({ prompt_tokens: 31, completion_tokens: 9, total_tokens: 40 });
    expect(stub.completions.map((r) => [r.bearer, r.messages])).toEqual([['sk-test', [{ role: 'user', content: 'Weather?' }]]]);
  });

  it('streams an answer as chunk events, with the usage last when asked for', async () => {
    stub = await OpenAiStub.start();
    stub.answerWith(() => 'Sunny, 24 °C.');
    const res = await complete(stub, { stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'And tomorrow?' }] });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text()).split('\n\n').filter((e) => e !== '').map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e) as Answer);
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Sunny, 24 °C.');
    expect(chunks.map((c) => c.choices[0]?.finish_reason ?? null)).toEqual([null, null, 'stop', null]);
    expect(chunks.at(-1)).toMatchObject({ object: 'chat.completion.chunk', choices: [], usage: { total_tokens: expect.any(Number) } });
  });

  it('holds its answers until released, having recorded the requests', async () => {
    stub = await OpenAiStub.start();
    stub.answerWith(judges(0.5));
    const release = stub.hold();
    let answered = false;
    const call = complete(stub, { messages: [{ role: 'user', content: 'Rate this' }], n: 2 }).then(async (r) => {
      answered = true;
      return (await r.json()) as Answer;
    });
    for (let waited = 0; stub.completions.length === 0 && waited < 10_000; waited += 10) await new Promise((r) => setTimeout(r, 10));
    expect(stub.completions).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    release();
    expect((await call).choices.map((c) => (JSON.parse(c.message?.content ?? '{}') as { rating?: unknown }).rating)).toEqual([0.5, 0.5]);
    // Released for good: the next request is answered at once.
    expect((await complete(stub, { messages: [] })).status).toBe(200);
  });
});
