import { decodedOk, detailOf } from '../shared/expect-decode';
import {
  CodeScorerVersionFields,
  CodeScorerVersionForm,
  CreateLLMScorerVersionRequest,
  CreateLunaScorerVersionRequest,
  CreateScorerRequest,
  ListScorerVersionsQuery,
  ListScorerVersionsResponse,
  LLM_VERSION_MESSAGE,
  RunScorerSettingsRequest,
  ScorerVersion,
} from './scorer.codec';

const U1 = '0f8fad5b-d9cb-469f-a165-70867728950e';

describe('CreateScorerRequest', () => {
  it('bounds the metadata listed with every scorer: description, tags, column labels', () => {
    const base = { name: 'toxicity', scorer_type: 'llm' };
    expect(decodedOk(CreateScorerRequest, { ...base, description: 'd'.repeat(10_000), tags: Array.from({ length: 100 }, () => 't'.repeat(255)) })).toMatchObject({ tags: expect.any(Array) });
    expect(detailOf(CreateScorerRequest, { ...base, description: 'd'.repeat(10_001) })).toEqual([
      expect.objectContaining({ loc: ['body', 'description'], type: 'string_too_long', ctx: { max_length: 10_000 } }),
    ]);
    expect(detailOf(CreateScorerRequest, { ...base, tags: Array.from({ length: 101 }, () => 't') })).toEqual([
      expect.objectContaining({ loc: ['body', 'tags'], type: 'too_long', ctx: { field_type: 'List', max_length: 100, actual_length: 101 } }),
    ]);
    expect(detailOf(CreateScorerRequest, { ...base, tags: ['ok', 't'.repeat(256)] })).toEqual([expect.objectContaining({ loc: ['body', 'tags', 1], type: 'string_too_long' })]);
    expect(detailOf(CreateScorerRequest, { ...base, label: 'l'.repeat(256) })).toEqual([expect.objectContaining({ loc: ['body', 'label'], type: 'string_too_long' })]);
  });

  it('refuses half of a surrogate pair in what a scorer stores as its own text, and takes it in a version’s prompts and schema (kept as JSON text)', () => {
    const base = { name: 'toxicity', scorer_type: 'llm' };
    const cut = 'cut \ud83d in half';
    const cases: ReadonlyArray<readonly [Record<string, unknown>, ReadonlyArray<string | number>]> = [
      [{ description: cut }, ['description']],
      [{ tags: ['ok', cut] }, ['tags', 1]],
      [{ label: cut }, ['label']],
      [{ group_label: cut }, ['group_label']],
      [{ data_unit: cut }, ['data_unit']],
      [{ threshold: { buckets: [0.5], display_value_levels: ['low', cut] } }, ['threshold', 'display_value_levels', 1]],
      [{ defaults: { model_name: cut } }, ['defaults', 'model_name']],
      [{ defaults: { output_type: cut } }, ['defaults', 'output_type']],
      [{ defaults: { input_type: cut } }, ['defaults', 'input_type']],
      [{ defaults: { scoreable_node_types: [cut] } }, ['defaults', 'scoreable_node_types', 0]],
      [{ output_type: cut }, ['output_type']],
      [{ input_type: cut }, ['input_type']],
      [{ scoreable_node_types: ['llm', cut] }, ['scoreable_node_types', 1]],
    ];
    for (const [over, at] of cases)
      expect([at, detailOf(CreateScorerRequest, { ...base, ...over })]).toEqual([at, [expect.objectContaining({ loc: ['body', ...at], type: 'string_unicode', input: cut })]]);
    expect(decodedOk(CreateScorerRequest, { ...base, description: 'whole 😀', tags: ['😀'], label: '😀' })).toMatchObject({ description: 'whole 😀' });
    expect(decodedOk(CreateLLMScorerVersionRequest, { instructions: cut, chain_poll_template: { template: cut, response_schema: { [cut]: cut } }, model_name: cut })).toMatchObject({ instructions: cut });
    expect(decodedOk(CreateLunaScorerVersionRequest, { lora_task_id: 1, prompt: cut, class_name_to_vocab_ix: { [cut]: 1 } })).toMatchObject({ prompt: cut });
  });

  it('fills description and tags', () => {
    expect(decodedOk(CreateScorerRequest, { name: 'toxicity', scorer_type: 'llm' })).toEqual({
      name: 'toxicity',
      scorer_type: 'llm',
      description: '',
      tags: [],
    });
  });

  it('decodes the presentation members; threshold.inverted defaults to false', () => {
    const body = {
      name: 'toxicity',
      scorer_type: 'llm',
      description: 'How toxic',
      tags: ['safety'],
      defaults: { model_name: 'gpt-4o', num_judges: 3, cot_enabled: true, output_type: 'percentage' },
      label: 'Toxicity',
      group_label: 'Safety Metrics',
      data_unit: 'percentage',
      threshold: { buckets: [0.3, 0.7], display_value_levels: ['Low', 'Medium', 'High'] },
    };
    expect(decodedOk(CreateScorerRequest, body)).toEqual({ ...body, threshold: { ...body.threshold, inverted: false } });
  });

  it('folds the SDK’s top-level output_type, input_type and scoreable_node_types into defaults where defaults is silent', () => {
    expect(
      decodedOk(CreateScorerRequest, {
        name: 's',
        scorer_type: 'llm',
        model_type: 'llm',
        output_type: 'boolean',
        input_type: 'basic',
        scoreable_node_types: ['llm'],
        defaults: { output_type: 'categorical' },
      }),
    ).toEqual({
      name: 's',
      scorer_type: 'llm',
      description: '',
      tags: [],
      model_type: 'llm',
      output_type: 'boolean',
      input_type: 'basic',
      scoreable_node_types: ['llm'],
      defaults: { output_type: 'categorical', input_type: 'basic', scoreable_node_types: ['llm'] },
    });
  });

  it('reports a threshold whose levels do not match its buckets at the threshold', () => {
    const threshold = { buckets: [0.3, 0.7], display_value_levels: ['Low', 'High'], inverted: true };
    expect(detailOf(CreateScorerRequest, { name: 's', scorer_type: 'llm', threshold })).toEqual([
      {
        loc: ['body', 'threshold'],
        msg: 'Value error, display_value_levels must have exactly one more entry than buckets',
        type: 'value_error',
        input: threshold,
        ctx: { error: 'display_value_levels must have exactly one more entry than buckets' },
      },
    ]);
  });

  it('reports an unknown scorer_type, a bad tag and a bad default, each where it is', () => {
    expect(detailOf(CreateScorerRequest, { name: '', scorer_type: 'magic', tags: ['ok', 3], defaults: { num_judges: 11 } })).toEqual([
      { loc: ['body', 'name'], msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } },
      {
        loc: ['body', 'scorer_type'],
        msg: "Input should be 'llm', 'code', 'luna' or 'preset'",
        type: 'enum',
        input: 'magic',
        ctx: { expected: "'llm', 'code', 'luna' or 'preset'" },
      },
      { loc: ['body', 'tags', 1], msg: 'Input should be a valid string', type: 'string_type', input: 3 },
      { loc: ['body', 'defaults', 'num_judges'], msg: 'Input should be less than or equal to 10', type: 'less_than_equal', input: 11, ctx: { le: 10 } },
    ]);
  });
});

describe('CreateLLMScorerVersionRequest', () => {
  it('fills the chain-poll template defaults', () => {
    expect(decodedOk(CreateLLMScorerVersionRequest, { chain_poll_template: { template: 'Rate {output}' }, num_judges: '3' })).toEqual({
      chain_poll_template: { template: 'Rate {output}', value_field_name: 'rating', explanation_field_name: 'explanation', metric_few_shot_examples: [] },
      num_judges: 3,
    });
  });

  it('needs one of instructions, user_prompt or chain_poll_template', () => {
    expect(detailOf(CreateLLMScorerVersionRequest, { model_name: 'gpt-4o', instructions: null })).toEqual([
      {
        loc: ['body'],
        msg: `Value error, ${LLM_VERSION_MESSAGE}`,
        type: 'value_error',
        input: { model_name: 'gpt-4o', instructions: null },
        ctx: { error: LLM_VERSION_MESSAGE },
      },
    ]);
  });

  it('reports a few-shot example missing a member at its index, and bad judges', () => {
    expect(
      detailOf(CreateLLMScorerVersionRequest, {
        chain_poll_template: { template: 'T', metric_few_shot_examples: [{ generation_prompt_and_response: 'a', evaluating_response: 'b' }, { generation_prompt_and_response: 'a' }] },
        num_judges: 2.5,
      }),
    ).toEqual([
      {
        loc: ['body', 'chain_poll_template', 'metric_few_shot_examples', 1, 'evaluating_response'],
        msg: 'Field required',
        type: 'missing',
        input: { generation_prompt_and_response: 'a' },
      },
      { loc: ['body', 'num_judges'], msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float', input: 2.5 },
    ]);
  });
});

describe('CreateLunaScorerVersionRequest', () => {
  it('fills slm_input_type span and slm_output_type float', () => {
    expect(decodedOk(CreateLunaScorerVersionRequest, { lora_task_id: 1, prompt: 'p' })).toEqual({
      lora_task_id: 1,
      prompt: 'p',
      slm_input_type: 'span',
      slm_output_type: 'float',
    });
  });

  it('takes the SDK’s luna_input_type / luna_output_type as the slm_ members', () => {
    expect(
      decodedOk(CreateLunaScorerVersionRequest, {
        lora_task_id: 2,
        prompt: 'p',
        luna_input_type: 'trace_object',
        luna_output_type: 'string_list',
        executor: 'default',
        class_name_to_vocab_ix: { yes: 1 },
      }),
    ).toEqual({
      lora_task_id: 2,
      prompt: 'p',
      slm_input_type: 'trace_object',
      slm_output_type: 'string_list',
      executor: 'default',
      class_name_to_vocab_ix: { yes: 1 },
    });
  });

  it('reports a bad task id, a missing prompt and an unknown input type', () => {
    expect(detailOf(CreateLunaScorerVersionRequest, { lora_task_id: 'x', slm_input_type: 'page' })).toEqual([
      { loc: ['body', 'lora_task_id'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing', input: 'x' },
      { loc: ['body', 'prompt'], msg: 'Field required', type: 'missing', input: { lora_task_id: 'x', slm_input_type: 'page' } },
      {
        loc: ['body', 'slm_input_type'],
        msg: "Input should be 'span', 'trace_object' or 'trace_input_output_only'",
        type: 'enum',
        input: 'page',
        ctx: { expected: "'span', 'trace_object' or 'trace_input_output_only'" },
      },
    ]);
  });
});

describe('the code version form', () => {
  it('reads scoreable_node_types as a JSON array or comma-separated names', () => {
    expect(decodedOk(CodeScorerVersionFields, { scoreable_node_types: 'llm, tool' })).toEqual({ scoreable_node_types: ['llm', 'tool'] });
    expect(decodedOk(CodeScorerVersionFields, { scoreable_node_types: '["trace"]', validation_result: '{}' })).toEqual({
      scoreable_node_types: ['trace'],
      validation_result: '{}',
    });
    expect(detailOf(CodeScorerVersionFields, { scoreable_node_types: '[1]' })).toEqual([
      { loc: ['body', 'scoreable_node_types'], msg: 'Input should be a valid list', type: 'list_type', input: '[1]' },
    ]);
  });

  it('refuses a name that is not a node type, at its index, and an empty list', () => {
    const expected = "'retriever', 'agent', 'session', 'control', 'tool', 'workflow', 'llm' or 'trace'";
    expect(detailOf(CodeScorerVersionFields, { scoreable_node_types: '["nope"]' })).toEqual([
      { loc: ['body', 'scoreable_node_types', 0], msg: `Input should be ${expected}`, type: 'enum', input: 'nope', ctx: { expected } },
    ]);
    expect(detailOf(CodeScorerVersionFields, { scoreable_node_types: 'llm, chain' })).toEqual([
      { loc: ['body', 'scoreable_node_types', 1], msg: `Input should be ${expected}`, type: 'enum', input: 'chain', ctx: { expected } },
    ]);
    for (const empty of ['[]', ''])
      expect(detailOf(CodeScorerVersionFields, { scoreable_node_types: empty })).toEqual([
        {
          loc: ['body', 'scoreable_node_types'],
          msg: 'Value error, scoreable_node_types is empty: the scorer would score nothing',
          type: 'value_error',
          input: empty,
          ctx: { error: 'scoreable_node_types is empty: the scorer would score nothing' },
        },
      ]);
  });

  it('needs an uploaded file', () => {
    const file = { filename: 'scorer.py', content: Buffer.from('def scorer_fn(): pass') };
    expect(decodedOk(CodeScorerVersionForm, { file })).toEqual({ file });
    expect(detailOf(CodeScorerVersionForm, {})).toEqual([{ loc: ['body', 'file'], msg: 'Field required', type: 'missing', input: {} }]);
    expect(detailOf(CodeScorerVersionForm, { file: 'print(1)' })).toEqual([
      {
        loc: ['body', 'file'],
        msg: "Value error, Expected UploadFile, received: <class 'str'>",
        type: 'value_error',
        input: 'print(1)',
        ctx: { error: "Expected UploadFile, received: <class 'str'>" },
      },
    ]);
  });
});

describe('ListScorerVersionsQuery', () => {
  it('defaults to starting_token 0 and limit 100; query values are strings', () => {
    expect(decodedOk(ListScorerVersionsQuery, {}, 'query')).toEqual({ starting_token: 0, limit: 100 });
    expect(decodedOk(ListScorerVersionsQuery, { starting_token: '2', limit: '2' }, 'query')).toEqual({ starting_token: 2, limit: 2 });
  });

  it.each([
    ['0', 'greater_than_equal', 'Input should be greater than or equal to 1', { ge: 1 }],
    ['1001', 'less_than_equal', 'Input should be less than or equal to 1000', { le: 1000 }],
    ['abc', 'int_parsing', 'Input should be a valid integer, unable to parse string as an integer', undefined],
  ])('limit=%s: %s', (limit, type, msg, ctx) => {
    expect(detailOf(ListScorerVersionsQuery, { limit }, 'query')).toEqual([{ loc: ['query', 'limit'], msg, type, input: limit, ...(ctx ? { ctx } : {}) }]);
  });

  it('starting_token=-1', () => {
    expect(detailOf(ListScorerVersionsQuery, { starting_token: '-1' }, 'query')).toEqual([
      { loc: ['query', 'starting_token'], msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: '-1', ctx: { ge: 0 } },
    ]);
  });
});

describe('RunScorerSettingsRequest', () => {
  it('decodes selections; version optional or null', () => {
    expect(decodedOk(RunScorerSettingsRequest, { scorers: [{ scorer_id: U1 }, { scorer_id: U1.toUpperCase(), version: 2 }, { scorer_id: U1, version: null }] })).toEqual({
      scorers: [{ scorer_id: U1 }, { scorer_id: U1, version: 2 }, { scorer_id: U1, version: null }],
    });
  });

  it('reports at the element index', () => {
    expect(detailOf(RunScorerSettingsRequest, { scorers: [{ scorer_id: U1 }, { scorer_id: 'nope', version: 0 }] })).toEqual([
      {
        loc: ['body', 'scorers', 1, 'scorer_id'],
        msg: 'Input should be a valid UUID, invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1',
        type: 'uuid_parsing',
        input: 'nope',
        ctx: { error: 'invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `n` at 1' },
      },
      { loc: ['body', 'scorers', 1, 'version'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } },
    ]);
    expect(detailOf(RunScorerSettingsRequest, { scorers: 'all' })).toEqual([
      { loc: ['body', 'scorers'], msg: 'Input should be a valid list', type: 'list_type', input: 'all' },
    ]);
  });
});

describe('ListScorerVersionsResponse', () => {
  const stamps = { created_at: '2026-01-02T03:04:05.000Z', updated_at: '2026-01-02T03:04:05.000Z', created_by: U1 };
  const template = {
    template: 'T', metric_system_prompt: null, metric_description: null, value_field_name: 'rating', explanation_field_name: 'explanation',
    metric_few_shot_examples: [{ generation_prompt_and_response: 'g', evaluating_response: 'e' }], response_schema: null,
  };
  const version = {
    id: 'v', version: 1, scorer_id: U1, ...stamps,
    generated_scorer: {
      id: 'g', name: 'tox', chain_poll_template: template, ...stamps, scoreable_node_types: ['llm'],
      scorer_configuration: { model_alias: 'gpt-4o', num_judges: 3, output_type: 'boolean', scoreable_node_types: ['llm'], cot_enabled: false, ground_truth: false, multimodal_capabilities: ['vision'] },
      instructions: 'i', user_prompt: 'u',
    },
    registered_scorer: null, finetuned_scorer: null, model_name: 'gpt-4o', num_judges: 3, scoreable_node_types: ['llm'], cot_enabled: false,
    output_type: 'boolean', input_type: 'basic', chain_poll_template: template, allowed_model: true,
  };
  it('describes every member of the spec’s scorer version', () => {
    expect(ScorerVersion.is(version)).toBe(true);
    const { allowed_model: _, ...withoutOne } = version;
    expect(ScorerVersion.is(withoutOne)).toBe(false);
    expect(ListScorerVersionsResponse.is({ starting_token: 0, limit: 2, paginated: true, next_starting_token: null, versions: [version] })).toBe(true);
  });
});
