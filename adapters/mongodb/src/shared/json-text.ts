// Client JSON kept in documents as its text, and what BSON changed in JSON stored as documents by
// earlier builds, made JSON again on the way back.
import { DBRef } from 'mongodb';
import { CorruptDocument } from './run';

/** A document field holding JSON text, parsed; a field that holds none, or text that is not JSON, is a corrupt document. */
export const parsedJson = (text: unknown, field: string): unknown => {
  if (typeof text !== 'string') throw new CorruptDocument(`${field}: no JSON text`);
  try {
    return JSON.parse(text);
  } catch {
    throw new CorruptDocument(`${field}: not JSON text`);
  }
};

const isPlainObject = (v: object): boolean => {
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * `v` as read back from BSON with every DBRef in it, at any depth, made the object it was written as:
 * BSON.deserialize gives any object with `$ref` and `$id` back as a DBRef instance. Its members come
 * back in another order (`$ref`, `$id`, `$db`, then the rest), and a `$ref` of two dot-separated parts,
 * which the BSON library splits into `$db` and `$ref`, stays split. Anything else (dates, strings, plain
 * values) is returned as it is, and a value with no DBRef in it is returned itself.
 */
export const withoutDbRefs = (v: unknown): unknown => {
  if (typeof v !== 'object' || v === null) return v;
  if (v instanceof DBRef) {
    const out: Record<string, unknown> = { $ref: v.collection, $id: withoutDbRefs(v.oid) };
    if (v.db !== undefined) out['$db'] = v.db;
    for (const [k, x] of Object.entries(v.fields)) out[k] = withoutDbRefs(x);
    return out;
  }
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x: unknown, i) => {
      const y = withoutDbRefs(x);
      if (y !== x) (out ??= [...v])[i] = y;
    });
    return out ?? v;
  }
  if (!isPlainObject(v)) return v;
  let out: Record<string, unknown> | undefined;
  for (const [k, x] of Object.entries(v)) {
    const y = withoutDbRefs(x);
    if (y !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = y;
  }
  return out ?? v;
};
