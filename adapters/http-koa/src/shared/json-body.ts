// JSON bodies parsed as koa-bodyparser (co-body) parses them, where this adapter reads the bytes itself
// (every JSON body): prototype poisoning refused, an empty body is none, a number past a double's range
// refused (422 finite_number); and bytes that are not UTF-8
// refused, where a decoder would have put U+FFFD in their place and stored the text mangled (two
// different names becoming one).
import * as bourne from '@hapi/bourne';
import { isUtf8 } from 'node:buffer';
import type { HttpError } from '../errors/domain-error.mapper';
import { malformedJson } from '../errors/malformed-json';
import { jsonInvalid, mayOverflowNumbers, nonFiniteNumberIn } from '@tracelight/api-schema';

export const parseJsonBody = (bytes: Buffer): { ok: true; value: unknown } | { ok: false; error: HttpError } => {
  if (bytes.length === 0) return { ok: true, value: {} };
  const text = bytes.toString('utf8');
  if (!isUtf8(bytes)) {
    // Where the first byte that is not UTF-8 was (or a U+FFFD sent before it, if any).
    const position = Math.max(0, text.indexOf('\uFFFD'));
    return { ok: false, error: { status: 422, body: { detail: [jsonInvalid(position, 'the body is not valid UTF-8')] } } };
  }
  let value: unknown;
  try {
    value = bourne.parse(text, { protoAction: 'error' }) as unknown;
  } catch (e) {
    return { ok: false, error: malformedJson(text, e) };
  }
  // A number past a double's range (1e400) is read as Infinity, which no field keeps: refused, never stored as null.
  const infinite = mayOverflowNumbers(text) ? nonFiniteNumberIn(value) : undefined;
  return infinite === undefined ? { ok: true, value } : { ok: false, error: { status: 422, body: { detail: [infinite] } } };
};
