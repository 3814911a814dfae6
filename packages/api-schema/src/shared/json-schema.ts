// JSON Schema (2020-12, as OpenAPI 3.1 uses) derived from the same io-ts codecs that validate
// requests: built-in codecs by their structure, custom codecs by the schema they registered.
import * as t from 'io-ts';

export type JsonSchema = { readonly [k: string]: unknown };

const registered = new WeakMap<object, (toSchema: (c: t.Decoder<unknown, unknown>) => JsonSchema) => JsonSchema>();

/** Attaches a schema to a custom codec (a function when it contains other codecs). */
export const describeCodec = <C extends object>(codec: C, schema: JsonSchema | ((toSchema: (c: t.Decoder<unknown, unknown>) => JsonSchema) => JsonSchema)): C => {
  registered.set(codec, typeof schema === 'function' ? schema : () => schema);
  return codec;
};

type Tagged = t.Decoder<unknown, unknown> & { readonly _tag?: string; readonly name: string } & Record<string, unknown>;

/** Named object schemas met on the way, for components.schemas; recursive codecs refer to them. */
export class SchemaBuilder {
  readonly components: Record<string, JsonSchema> = {};
  private readonly building = new Set<string>();

  schemaOf = (codec: t.Decoder<unknown, unknown>): JsonSchema => {
    const c = codec as Tagged;
    const custom = registered.get(c);
    if (custom) return custom(this.schemaOf);
    switch (c._tag) {
      case 'StringType':
        return { type: 'string' };
      case 'NumberType':
        return { type: 'number' };
      case 'BooleanType':
        return { type: 'boolean' };
      case 'NullType':
        return { type: 'null' };
      case 'UnknownType':
      case 'AnyType':
        return {};
      case 'NeverType':
        return { not: {} };
      case 'LiteralType':
        return { const: c['value'] };
      case 'KeyofType':
        return { type: 'string', enum: Object.keys(c['keys'] as object) };
      case 'UnionType':
        return { anyOf: (c['types'] as t.Mixed[]).map(this.schemaOf) };
      case 'IntersectionType': {
        const parts = c['types'] as Tagged[];
        if (!parts.every((p) => p._tag === 'InterfaceType' || p._tag === 'PartialType')) return { allOf: parts.map(this.schemaOf) };
        // Required and optional members (t.type & t.partial): one object, under the intersection's name.
        const props = (p: Tagged) => Object.entries(p['props'] as Record<string, t.Mixed>);
        const required = parts.flatMap((p) => (p._tag === 'InterfaceType' ? props(p).map(([k]) => k) : []));
        return this.named(c.name, () => ({
          type: 'object',
          properties: Object.fromEntries(parts.flatMap(props).map(([k, v]) => [k, this.schemaOf(v)])),
          ...(required.length > 0 ? { required } : {}),
        }));
      }
      case 'TupleType':
        return { type: 'array', prefixItems: (c['types'] as t.Mixed[]).map(this.schemaOf), minItems: (c['types'] as t.Mixed[]).length, maxItems: (c['types'] as t.Mixed[]).length };
      case 'ArrayType':
      case 'ReadonlyArrayType':
        return { type: 'array', items: this.schemaOf(c['type'] as t.Mixed) };
      case 'DictionaryType':
        return { type: 'object', additionalProperties: this.schemaOf(c['codomain'] as t.Mixed) };
      case 'UnknownRecordType':
        return { type: 'object' };
      case 'ExactType':
      case 'ReadonlyType':
      case 'RefinementType':
        return this.schemaOf(c['type'] as t.Mixed);
      case 'InterfaceType':
      case 'PartialType': {
        const props = c['props'] as Record<string, t.Mixed>;
        return this.named(c.name, () => ({
          type: 'object',
          properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, this.schemaOf(v)])),
          ...(c._tag === 'InterfaceType' ? { required: Object.keys(props) } : {}),
        }));
      }
      case 'RecursiveType':
        return this.named(c.name, () => this.schemaOf((c as unknown as { type: t.Mixed }).type));
      default:
        throw new Error(`no JSON Schema for codec ${c.name} (${c._tag ?? 'custom'}): register one with describeCodec`);
    }
  };

  /** Object schemas with a proper name go to components and are referred to; generated names are inlined. */
  named(name: string, build: () => JsonSchema): JsonSchema {
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name)) return build();
    const ref = { $ref: `#/components/schemas/${name}` };
    if (this.components[name] || this.building.has(name)) return ref;
    this.building.add(name);
    this.components[name] = build();
    this.building.delete(name);
    return ref;
  }
}
