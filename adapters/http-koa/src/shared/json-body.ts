// JSON bodies parsed as koa-bodyparser (co-body) parses them, where this adapter reads the bytes itself
// (every JSON body): a byte order mark skipped, prototype poisoning refused, an empty body is none, a
// number past a double's range refused (422 finite_number); and bytes that are not UTF-8 refused, where
// a decoder would have put U+FFFD in their place and stored the text mangled (two different names
// becoming one).
import * as bourne from '@hapi/bourne';
import { isUtf8 } from 'node:buffer';
import { jsonInvalid, mayOverflowNumbers, nonFiniteNumberIn } from '@tracelight/api-schema';
import type { HttpError } from '../errors/domain-error.mapper';
import { malformedJson } from '../errors/malformed-json';

/** UTF-8's byte order mark, which some clients (Windows, .NET) put first, as co-body and Python's json skip it. */
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * Where the first byte that is not part of UTF-8 is, in characters of the text before it (UTF-16 units,
 * as every json_invalid position): only asked of a body isUtf8 refused.
 */
const firstNotUtf8 = (bytes: Buffer): number => {
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i]!;
    const width = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    // isUtf8 of the one sequence judges its continuation bytes, overlong forms and surrogates.
    if (width === 0 || !isUtf8(bytes.subarray(i, i + width)) || i + width > bytes.length) break;
    i += width;
  }
  return bytes.subarray(0, i).toString('utf8').length;
};

/** `absent`: no body, or an empty one (a byte order mark alone included), which a route that needs a body answers as missing. */
export const parseJsonBody = (sent: Buffer): { ok: true; value: unknown; absent: boolean } | { ok: false; error: HttpError } => {
  const bytes = sent.subarray(0, 3).equals(BOM) ? sent.subarray(3) : sent;
  if (bytes.length === 0) return { ok: true, value: {}, absent: true };
  if (!isUtf8(bytes)) return { ok: false, error: { status: 422, body: { detail: [jsonInvalid(firstNotUtf8(bytes), 'the body is not valid UTF-8')] } } };
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = bourne.parse(text, { protoAction: 'error' }) as unknown;
  } catch (e) {
    return { ok: false, error: malformedJson(text, e) };
  }
  // A number past a double's range (1e400) is read as Infinity, which no field keeps: refused, never stored as null.
  const infinite = mayOverflowNumbers(text) ? nonFiniteNumberIn(value) : undefined;
  return infinite === undefined ? { ok: true, value, absent: false } : { ok: false, error: { status: 422, body: { detail: [infinite] } } };
};
