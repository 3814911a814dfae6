import * as t from 'io-ts';
import * as api from '../index';
import { SchemaBuilder } from './json-schema';

const codecs = Object.entries(api).filter((entry): entry is [string, t.Mixed] => entry[1] instanceof t.Type);

describe('JSON Schema of every exported codec (the OpenAPI document is derived from them)', () => {
  it.each(codecs)('%s has one', (_, codec) => {
    expect(() => new SchemaBuilder().schemaOf(codec)).not.toThrow();
  });

  it('request schemas carry required members, bounds and defaults', () => {
    expect(new SchemaBuilder().schemaOf(api.CreateScorerRequest)).toMatchObject({
      type: 'object',
      required: ['name', 'scorer_type'],
      properties: { description: { type: 'string', default: '' }, tags: { type: 'array', default: [] } },
    });
    expect(new SchemaBuilder().schemaOf(api.ListScorerVersionsQuery.props.limit)).toEqual({ type: 'integer', minimum: 1, maximum: 1000, default: 100 });
    expect(new SchemaBuilder().schemaOf(api.GatewayIntegrationCreate)).toMatchObject({
      required: ['token', 'endpoint', 'use_case'],
      properties: { use_case: { type: 'string', pattern: '^[A-Z][A-Z0-9_]*$' }, endpoint: { format: 'uri' } },
    });
  });

  it('names the spec’s ValidationError: required and optional members in one object schema', () => {
    const b = new SchemaBuilder();
    expect(b.schemaOf(api.HTTPValidationErrorCodec)).toEqual({ $ref: '#/components/schemas/HTTPValidationError' });
    expect(b.components['HTTPValidationError']).toMatchObject({ properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } } });
    expect(b.components['ValidationError']).toMatchObject({ type: 'object', required: ['loc', 'msg', 'type'], properties: { loc: {}, msg: {}, type: {}, input: {}, ctx: {} } });
  });

  it('response schemas declare nullability', () => {
    const b = new SchemaBuilder();
    b.schemaOf(api.ListScorerVersionsResponse);
    expect(b.components['ScorerVersion']).toMatchObject({
      properties: { generated_scorer: { anyOf: [{ $ref: '#/components/schemas/GeneratedScorer' }, { type: 'null' }] } },
    });
    // Integers, timestamps and ids in answers say so (a generated client reads them as such).
    expect(b.components['ScorerVersion']).toMatchObject({ properties: { version: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' } } });
    expect(b.components['ListScorerVersionsResponse']).toMatchObject({
      properties: { paginated: { const: true }, next_starting_token: { anyOf: [{ type: 'integer' }, { type: 'null' }] } },
    });
  });
});
