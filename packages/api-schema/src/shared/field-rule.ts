// Rules across a body's members ("exactly one of …", "at least one of …") as data: the runtime check
// and the JSON Schema of the OpenAPI document are both derived from the same rule, so they cannot drift.
import type * as t from 'io-ts';
import { describeCodec, type JsonSchema } from './json-schema';
import { Checked } from './primitives.codec';
import { valueErrorInfo } from './validation-error';

/**
 * How many of `fields` must be given; a member counts as given when present and not null (a null
 * member is an absent one, as pydantic's `is None` checks read it).
 */
export interface FieldRule {
  readonly kind: 'exactly_one' | 'at_least_one';
  readonly fields: ReadonlyArray<string>;
  /** The 422 `ctx.error` (its `msg` is `Value error, ` + this). */
  readonly message: string;
}

export const exactlyOneOf = (fields: ReadonlyArray<string>, message: string): FieldRule => ({ kind: 'exactly_one', fields, message });
export const atLeastOneOf = (fields: ReadonlyArray<string>, message: string): FieldRule => ({ kind: 'at_least_one', fields, message });

/** The rule's members that `value` gives (present and not null), in the rule's order. */
export const givenFields = (rule: FieldRule, value: unknown): ReadonlyArray<string> => {
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  return rule.fields.filter((f) => record[f] !== undefined && record[f] !== null);
};

export const ruleHolds = (rule: FieldRule, value: unknown): boolean => {
  const n = givenFields(rule, value).length;
  return rule.kind === 'exactly_one' ? n === 1 : n >= 1;
};

/** "Given" in JSON Schema: the member is required and its value is not null. */
const givenSchema = (field: string): JsonSchema => ({ required: [field], properties: { [field]: { not: { type: 'null' } } } });

/** The rule in JSON Schema 2020-12: `oneOf` (exactly one alternative holds) or `anyOf` over "this member is given". */
export const ruleSchema = (rule: FieldRule): JsonSchema => ({
  [rule.kind === 'exactly_one' ? 'oneOf' : 'anyOf']: rule.fields.map(givenSchema),
});

/** An object schema with a rule added: merged where it has no `oneOf`/`anyOf` of its own, else beside it in `allOf`. */
export const withRuleSchema = (schema: JsonSchema, rule: FieldRule): JsonSchema => {
  const extra = ruleSchema(rule);
  const clash = Object.keys(extra).some((k) => k in schema) || '$ref' in schema;
  const sentence = `${rule.message.charAt(0).toUpperCase()}${rule.message.slice(1)} (a null member counts as absent).`;
  const described = { description: typeof schema['description'] === 'string' ? `${schema['description']} ${sentence}` : sentence };
  return clash ? { allOf: [schema, extra], ...described } : { ...schema, ...extra, ...described };
};

/**
 * `codec`, then the rule: refused with one `value_error` at the object itself (input: the object as
 * sent), after its members decoded; its schema is the codec's with the rule added.
 */
export const WithRule = <A, O>(codec: t.Type<A, O, unknown>, rule: FieldRule) =>
  describeCodec(
    Checked(codec, (value) => (ruleHolds(rule, value) ? undefined : valueErrorInfo(rule.message))),
    (toSchema) => withRuleSchema(toSchema(codec), rule),
  );
