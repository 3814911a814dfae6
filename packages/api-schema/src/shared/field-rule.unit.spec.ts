import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import * as api from '../index';
import { detailOf } from './expect-decode';
import { atLeastOneOf, exactlyOneOf, ruleHolds, ruleSchema } from './field-rule';
import { SchemaBuilder } from './json-schema';

const U1 = '0f8fad5b-d9cb-469f-a165-70867728950e';
const U2 = '7c9e6679-7425-40de-944b-e07fc1f90ae7';

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validatorOf = (codec: t.Decoder<unknown, unknown>) => {
  const b = new SchemaBuilder();
  const schema = b.schemaOf(codec);
  return ajv.compile({ ...schema, $defs: b.components } as object);
};

describe('rules across members', () => {
  const one = exactlyOneOf(['a', 'b'], 'exactly one of a or b must be provided');
  const some = atLeastOneOf(['a', 'b'], 'at least one of a or b must be provided');

  it.each([
    [{}, false, false],
    [{ a: null }, false, false],
    [{ a: 1 }, true, true],
    [{ a: 1, b: null }, true, true],
    [{ a: 1, b: 2 }, false, true],
    [{ a: 0, b: '' }, false, true],
  ])('%j: exactly one %s, at least one %s, at run time and in JSON Schema alike', (value, exactly, atLeast) => {
    expect(ruleHolds(one, value)).toBe(exactly);
    expect(ruleHolds(some, value)).toBe(atLeast);
    expect(ajv.validate(ruleSchema(one), value)).toBe(exactly);
    expect(ajv.validate(ruleSchema(some), value)).toBe(atLeast);
  });
});

// Each codec with a rule: its decoding (200 or the rule's 422) and its schema agree, body by body.
describe.each([
  [
    'SpansAvailableColumnsRequest',
    api.SpansAvailableColumnsRequest as t.Decoder<unknown, unknown>,
    api.RUN_SCOPE_MESSAGE,
    [{ log_stream_id: U1 }, { log_stream_id: null, experiment_id: U2 }, { metrics_testing_id: U1, experiment_id: null }],
    [{}, { log_stream_id: null }, { log_stream_id: U1, experiment_id: U2 }, { log_stream_id: U1, experiment_id: U2, metrics_testing_id: U1 }],
  ],
  [
    'CreateLLMScorerVersionRequest',
    api.CreateLLMScorerVersionRequest as t.Decoder<unknown, unknown>,
    api.LLM_VERSION_MESSAGE,
    [{ instructions: 'judge' }, { user_prompt: 'u', instructions: null }, { chain_poll_template: { template: 'T' } }, { instructions: 'i', user_prompt: 'u' }],
    [{}, { model_name: 'gpt-4o' }, { instructions: null, user_prompt: null, chain_poll_template: null }],
  ],
])('%s', (_, codec, message, valid: ReadonlyArray<object>, invalid: ReadonlyArray<object>) => {
  const validate = validatorOf(codec);

  it.each(valid)('accepts %j, and so does its schema', (body) => {
    expect(E.isRight(codec.decode(body))).toBe(true);
    expect(validate(body)).toBe(true);
  });

  it.each(invalid)('refuses %j with the rule’s one value_error at ["body"], and so does its schema', (body) => {
    expect(detailOf(codec, body)).toEqual([{ loc: ['body'], msg: `Value error, ${message}`, type: 'value_error', input: body, ctx: { error: message } }]);
    expect(validate(body)).toBe(false);
  });
});
