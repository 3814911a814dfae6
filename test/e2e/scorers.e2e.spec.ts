// Spec operation 5: GET /v2/scorers/{scorer_id}/versions, and the scorer routes that create versions.
import { randomUUID } from 'node:crypto';
import { http } from '../support/http';
import { ADMIN, startServer } from '../support/server';
import { startWorld, type World } from '../support/world';

let w: World;
let scorerId: string;
beforeAll(async () => {
  w = await startWorld();
  scorerId = w.ok(
    await w.call('POST', '/v2/scorers', {
      auth: w.admin,
      json: { name: 'groundedness', scorer_type: 'llm', description: 'Is the answer grounded in the context?', tags: ['rag'] },
    }),
  ).id;
});
afterAll(() => w.server.stop());

const versions = (query = '', auth = w.admin, id = scorerId) => w.call('GET', `/v2/scorers/${id}/versions${query}`, { auth });

describe('scorer versions', () => {
  it('starts empty', async () => {
    const r = await versions();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ starting_token: 0, limit: 100, paginated: true, next_starting_token: null, versions: [] });
  });

  it('numbers LLM, code and luna versions 1, 2, 3 and lists every field', async () => {
    const llm = await w.call('POST', `/v2/scorers/${scorerId}/version/llm`, {
      auth: w.admin,
      json: {
        instructions: 'Judge whether every claim is supported by the context.',
        user_prompt: 'Context: {context}\nAnswer: {output}',
        model_name: 'gpt-4o-mini',
        num_judges: 5,
        cot_enabled: true,
        output_type: 'boolean',
        input_type: 'basic',
        scoreable_node_types: ['llm', 'trace'],
      },
    });
    expect(llm.status).toBe(200);
    expect(llm.body).toMatchObject({
      version: 1,
      scorer_id: scorerId,
      model_name: 'gpt-4o-mini',
      num_judges: 5,
      cot_enabled: true,
      output_type: 'boolean',
      input_type: 'basic',
      scoreable_node_types: ['llm', 'trace'],
      allowed_model: true,
      registered_scorer: null,
      finetuned_scorer: null,
      chain_poll_template: expect.objectContaining({ template: expect.any(String), value_field_name: 'rating', explanation_field_name: 'explanation' }),
      generated_scorer: expect.objectContaining({
        instructions: 'Judge whether every claim is supported by the context.',
        user_prompt: 'Context: {context}\nAnswer: {output}',
        scorer_configuration: expect.objectContaining({ model_alias: 'gpt-4o-mini', num_judges: 5, cot_enabled: true }),
      }),
    });

    const form = new FormData();
    // A file name in UTF-8, as browsers and curl send it, comes back as sent.
    form.append('file', new Blob(['def scorer_fn(*, response: str, **kwargs) -> float:\n    return 1.0\n']), 'évaluation €.py');
    const code = await w.call('POST', `/v2/scorers/${scorerId}/version/code`, { auth: w.admin, multipart: form });
    expect(code.status).toBe(200);
    expect(code.body).toMatchObject({ version: 2, generated_scorer: null, finetuned_scorer: null, registered_scorer: expect.objectContaining({ name: 'groundedness', data_type: 'unknown' }) });

    const source = await w.call('GET', `/v2/scorers/${scorerId}/version/code`, { auth: w.admin });
    expect(source.status).toBe(200);
    expect(source.text).toBe('def scorer_fn(*, response: str, **kwargs) -> float:\n    return 1.0\n');
    expect(source.headers.get('content-disposition')).toContain("filename*=UTF-8''%C3%A9valuation%20%E2%82%AC.py");

    const luna = await w.call('POST', `/v2/scorers/${scorerId}/version/luna`, {
      auth: w.admin,
      json: { lora_task_id: 7, prompt: 'Is it grounded?', class_name_to_vocab_ix: { yes: 1, no: 0 } },
    });
    expect(luna.status).toBe(200);
    expect(luna.body).toMatchObject({
      version: 3,
      generated_scorer: null,
      registered_scorer: null,
      finetuned_scorer: expect.objectContaining({ lora_task_id: 7, prompt: 'Is it grounded?', slm_input_type: 'span', slm_output_type: 'float', class_name_to_vocab_ix: { yes: 1, no: 0 } }),
    });

    const all = await versions();
    expect(all.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3]);
    expect(Object.keys(all.body.versions[0]).sort()).toEqual(
      [
        'id', 'version', 'scorer_id', 'created_at', 'updated_at', 'generated_scorer', 'registered_scorer', 'finetuned_scorer',
        'model_name', 'num_judges', 'scoreable_node_types', 'cot_enabled', 'output_type', 'input_type', 'chain_poll_template',
        'allowed_model', 'created_by',
      ].sort(),
    );
    expect(all.body.versions[0]).toEqual(llm.body);
  });

  it('pages two at a time with next_starting_token', async () => {
    const first = await versions('?limit=2');
    expect(first.body).toMatchObject({ starting_token: 0, limit: 2, paginated: true, next_starting_token: 2 });
    expect(first.body.versions.map((v: { version: number }) => v.version)).toEqual([1, 2]);
    const second = await versions('?starting_token=2&limit=2');
    expect(second.body).toMatchObject({ starting_token: 2, limit: 2, next_starting_token: null });
    expect(second.body.versions.map((v: { version: number }) => v.version)).toEqual([3]);
    const past = await versions('?starting_token=10');
    expect(past.body.versions).toEqual([]);
  });

  it('gives concurrent version creations distinct consecutive numbers, however many at once', async () => {
    const id = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `race-${Date.now()}`, scorer_type: 'llm' } })).id;
    // Past a hundred at once, numbering from the committed version alone gave up with 503.
    const n = 400;
    const made = await Promise.all(
      Array.from({ length: n }, () => w.call('POST', `/v2/scorers/${id}/version/llm`, { auth: w.admin, json: { instructions: 'x' } })),
    );
    expect(made.map((r) => r.status)).toEqual(Array(n).fill(200));
    expect(made.map((r) => r.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  });

  // The server keeps settled pages (full, with versions 1..N all there) for good: see isSettled in the
  // scorer use cases. What is under test: a kept page reads the same, the pages that can still change
  // are read afresh, including after a version added by another server process on the same storage.
  it('keeps answering a settled page the same, and shows versions added later on the pages they change', async () => {
    const id = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `pages-${Date.now()}`, scorer_type: 'llm' } })).id;
    const add = async (baseUrl = w.server.baseUrl, auth = w.admin) => {
      const made = await http(baseUrl)('POST', `/v2/scorers/${id}/version/llm`, { auth, json: { instructions: 'x' } });
      expect(made.status).toBe(200);
      return made.body.version as number;
    };
    const numbers = async (query: string) => {
      const r = await versions(query, w.admin, id);
      expect(r.status).toBe(200);
      return { versions: r.body.versions.map((v: { version: number }) => v.version), next: r.body.next_starting_token };
    };
    for (let i = 0; i < 3; i++) await add();
    const settled = await versions('?limit=2', w.admin, id);
    expect(settled.body).toMatchObject({ starting_token: 0, limit: 2, next_starting_token: 2 });
    const again = await versions('?limit=2', w.admin, id);
    expect(again.body).toEqual(settled.body);
    expect(again.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(again.headers.get('content-length')).toBe(settled.headers.get('content-length'));
    expect(await numbers('?starting_token=2&limit=2')).toEqual({ versions: [3], next: null });
    expect(await numbers('?limit=3')).toEqual({ versions: [1, 2, 3], next: null });

    expect(await add()).toBe(4);
    expect(await numbers('?starting_token=2&limit=2')).toEqual({ versions: [3, 4], next: null });
    expect(await numbers('?limit=3')).toEqual({ versions: [1, 2, 3], next: 3 });

    // Another server process on the same storage adds version 5; this one sees it on the last page.
    const second = await startServer(w.server.storageEnv);
    try {
      const token = w.ok(await http(second.baseUrl)('POST', '/login', { form: { username: ADMIN.email, password: ADMIN.password } })).access_token;
      expect(await add(second.baseUrl, { bearer: token })).toBe(5);
    } finally {
      await second.stop();
    }
    expect(await numbers('?starting_token=2&limit=2')).toEqual({ versions: [3, 4], next: 4 });
    expect(await numbers('?starting_token=4&limit=2')).toEqual({ versions: [5], next: null });
    expect((await versions('?limit=2', w.admin, id)).body).toEqual(settled.body);

    // Kept or not, the page is still nobody else's.
    const other = await w.user(`pages-${Date.now()}@example.com`);
    expect((await versions('?limit=2', other.auth, id)).status).toBe(404);
  });

  it.each([
    ['?limit=0', ['query', 'limit']],
    ['?limit=1001', ['query', 'limit']],
    ['?limit=abc', ['query', 'limit']],
    ['?starting_token=-1', ['query', 'starting_token']],
    ['?starting_token=1.5', ['query', 'starting_token']],
  ])('answers 422 for %s', async (query, loc) => {
    const r = await versions(query);
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([expect.objectContaining({ loc, type: expect.any(String), msg: expect.any(String) })]);
  });

  it('lists the caller’s scorers each with its latest version, as GET of one scorer shows it', async () => {
    const u = await w.user(`lister-${Date.now()}@example.com`);
    const made = async (name: string, versions: number) => {
      const id = w.ok(await w.call('POST', '/v2/scorers', { auth: u.auth, json: { name, scorer_type: 'llm' } })).id as string;
      for (let i = 0; i < versions; i++) w.ok(await w.call('POST', `/v2/scorers/${id}/version/llm`, { auth: u.auth, json: { instructions: `v${i + 1}` } }));
      return id;
    };
    const ids = [await made('none', 0), await made('one', 1), await made('three', 3)];
    const listed = w.ok(await w.call('GET', '/v2/scorers', { auth: u.auth })) as Array<{ id: string; latest_version: { version: number } | null }>;
    expect(listed.map((s) => [s.id, s.latest_version?.version ?? null])).toEqual([[ids[0], null], [ids[1], 1], [ids[2], 3]]);
    for (const s of listed) expect(s).toEqual(w.ok(await w.call('GET', `/v2/scorers/${s.id}`, { auth: u.auth })));
  });

  it('answers 404 for an unknown scorer, another user’s scorer, and an id that is no UUID (the spec types it a string)', async () => {
    expect((await versions('', w.admin, randomUUID())).status).toBe(404);
    const other = await w.user(`scorers-${Date.now()}@example.com`);
    expect((await versions('', other.auth)).status).toBe(404);
    const bad = await versions('', w.admin, 'nope');
    expect(bad.status).toBe(404);
    expect(bad.body).toEqual({ detail: 'Scorer not found' });
  });

  it('works with each of the four credential schemes and answers 401 without', async () => {
    const key = await w.apiKey(w.admin);
    for (const auth of [{ apiKey: key }, { apiKey: key, header: 'Service-AO-API-Key' }, w.admin, { basic: ADMIN }]) {
      expect((await versions('', auth)).status).toBe(200);
    }
    expect((await w.call('GET', `/v2/scorers/${scorerId}/versions`)).status).toBe(401);
  });

  it('rejects an LLM version with none of instructions, user_prompt or chain_poll_template', async () => {
    const r = await w.call('POST', `/v2/scorers/${scorerId}/version/llm`, { auth: w.admin, json: { model_name: 'x' } });
    expect(r.status).toBe(422);
  });

  it('rejects a code version that is not a multipart upload', async () => {
    const r = await w.call('POST', `/v2/scorers/${scorerId}/version/code`, { auth: w.admin, json: { file: 'x' } });
    expect(r.status).toBe(415);
  });

  it('refuses a code upload that is not UTF-8 text (it would come back changed), and keeps one that is, byte for byte', async () => {
    const id = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `utf8-${Date.now()}`, scorer_type: 'code' } })).id;
    const upload = (bytes: Uint8Array) => {
      const form = new FormData();
      form.append('file', new Blob([bytes]), 'scorer.py');
      return w.call('POST', `/v2/scorers/${id}/version/code`, { auth: w.admin, multipart: form });
    };
    const bad = await upload(new Uint8Array([0x00, 0xff, 0xfe, 0x80]));
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([expect.objectContaining({ loc: ['body', 'file'], type: 'value_error', input: 'scorer.py', msg: 'Value error, the uploaded file is not UTF-8 text' })]);
    const text = 'print("héllo ✓ 🚀")\n';
    expect((await upload(new TextEncoder().encode(text))).status).toBe(200);
    expect((await w.call('GET', `/v2/scorers/${id}/version/code`, { auth: w.admin })).text).toBe(text);
  });

  it('takes a code file of exactly TRACELIGHT_UPLOAD_LIMIT_BYTES (1 MiB by default), and refuses one a byte larger with 413', async () => {
    const id = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `limit-${Date.now()}`, scorer_type: 'code' } })).id;
    const upload = (bytes: number) => {
      const form = new FormData();
      form.append('file', new Blob(['#'.repeat(bytes)]), 'scorer.py');
      return w.call('POST', `/v2/scorers/${id}/version/code`, { auth: w.admin, multipart: form });
    };
    const over = await upload(1_048_577);
    expect([over.status, over.body]).toEqual([413, { detail: 'Uploaded file too large' }]);
    expect((await upload(1_048_576)).status).toBe(200);
    expect((await w.call('GET', `/v2/scorers/${id}/version/code`, { auth: w.admin })).text).toHaveLength(1_048_576);
  });

  it('answers 422 to an upload cut off inside its file part, and goes on serving', async () => {
    const cut = '--cut\r\nContent-Disposition: form-data; name="file"; filename="scorer.py"\r\n\r\nprint(1)';
    const r = await w.call('POST', `/v2/scorers/${scorerId}/version/code`, {
      auth: w.admin,
      raw: cut,
      headers: { 'content-type': 'multipart/form-data; boundary=cut' },
    });
    expect(r.status).toBe(422);
    expect((await versions()).status).toBe(200);
  });
});

describe('what a scorer and its versions keep of the client’s text and JSON', () => {
  const cut = 'cut \ud83d in half';

  it('refuses half a surrogate pair in a scorer’s own text (stored as text and fields) with 422 string_unicode, creating nothing', async () => {
    for (const [over, at] of [[{ description: cut }, ['description']], [{ tags: [cut] }, ['tags', 0]], [{ label: cut }, ['label']], [{ defaults: { model_name: cut } }, ['defaults', 'model_name']]] as const) {
      const r = await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: 'cut-scorer', scorer_type: 'llm', ...over } });
      expect([at, r.status, r.body.detail]).toEqual([at, 422, [expect.objectContaining({ loc: ['body', ...at], type: 'string_unicode', input: cut })]]);
    }
    const named = w.ok(await w.call('GET', '/v2/scorers', { auth: w.admin })) as unknown;
    expect(JSON.stringify(named)).not.toContain('cut-scorer');
  });

  it('keeps a version’s response schema and vocabulary whatever their keys, and half a surrogate pair in its prompts, as sent', async () => {
    const id = w.ok(await w.call('POST', '/v2/scorers', { auth: w.admin, json: { name: `shapes-${randomUUID()}`, scorer_type: 'llm' } })).id;
    const schema = { $ref: 'users', $id: 1, nested: [{ $ref: 'a', $id: 'b', $db: 'c' }], 'nul\u0000key': 1, _bsontype: 'ObjectId', [cut]: cut };
    const llm = w.ok(await w.call('POST', `/v2/scorers/${id}/version/llm`, { auth: w.admin, json: { instructions: cut, chain_poll_template: { template: cut, response_schema: schema } } }));
    const luna = w.ok(await w.call('POST', `/v2/scorers/${id}/version/luna`, { auth: w.admin, json: { lora_task_id: 1, prompt: cut, class_name_to_vocab_ix: schema } }));
    type Listed = {
      version: number;
      chain_poll_template: { response_schema: unknown; template: string } | null;
      generated_scorer: { instructions: string } | null;
      finetuned_scorer: { class_name_to_vocab_ix: unknown; prompt: string } | null;
    };
    const [llmRead, lunaRead] = w.ok(await versions('', w.admin, id)).versions as [Listed, Listed];
    expect([llmRead.version, lunaRead.version]).toEqual([llm.version, luna.version]);
    expect(JSON.stringify(llmRead.chain_poll_template?.response_schema)).toBe(JSON.stringify(schema));
    expect([llmRead.generated_scorer?.instructions, llmRead.chain_poll_template?.template]).toEqual([cut, cut]);
    expect(JSON.stringify(lunaRead.finetuned_scorer?.class_name_to_vocab_ix)).toBe(JSON.stringify(schema));
    expect(lunaRead.finetuned_scorer?.prompt).toBe(cut);
  });
});
