// OTLP/HTTP's answers: every 4xx and 5xx body is a google.rpc.Status, protobuf-encoded for a protobuf
// request and JSON-encoded for a JSON one, and bad data is 400, not the API's 422; a success to a
// protobuf request is an empty (protobuf) ExportTraceServiceResponse. The answer itself is made as on
// any route (validation, credentials, limits; on the request thread or by an offload worker); this
// turns it into the protocol's form on the way out, keeping headers such as Retry-After.
import type { Next } from 'koa';
import type { AppContext } from '../shared/context';

/** google.rpc.Code values (grpc/status codes). */
const INVALID_ARGUMENT = 3;
const NOT_FOUND = 5;
const PERMISSION_DENIED = 7;
const RESOURCE_EXHAUSTED = 8;
const INTERNAL = 13;
const UNAVAILABLE = 14;
const UNAUTHENTICATED = 16;

/** The HTTP status OTLP/HTTP expects, and the Status code that says why. */
const otlpStatusOf = (status: number): { readonly status: number; readonly code: number } => {
  if (status === 401) return { status, code: UNAUTHENTICATED };
  if (status === 403) return { status, code: PERMISSION_DENIED };
  if (status === 404) return { status, code: NOT_FOUND };
  if (status === 413 || status === 429) return { status, code: RESOURCE_EXHAUSTED };
  if (status === 503) return { status, code: UNAVAILABLE };
  // Storage full: not retryable by OTLP/HTTP's rules (only 429, 502, 503, 504 are), as retrying cannot help.
  if (status === 507) return { status, code: RESOURCE_EXHAUSTED };
  if (status >= 500) return { status, code: INTERNAL };
  // 415 and 422 (and any other refusal of what was sent) are bad data: 400, not to be retried.
  return { status: status === 415 ? 415 : 400, code: INVALID_ARGUMENT };
};

/** The API's error body in one sentence: `detail` as it is, or each `detail[]` entry's place and message. */
const messageOf = (body: unknown): string => {
  const detail = (body as { detail?: unknown } | null | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail))
    return detail.map((d: { loc?: unknown[]; msg?: unknown }) => `${(d.loc ?? []).join('.')}: ${String(d.msg ?? '')}`).join('; ');
  return 'request refused';
};

const varint = (n: number): number[] => {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
};

/** A google.rpc.Status message: field 1 `code` (varint), field 2 `message` (string); no details. */
export const encodeStatus = (code: number, message: string): Buffer => {
  const text = Buffer.from(message, 'utf8');
  return Buffer.concat([Buffer.from([0x08, ...varint(code), 0x12, ...varint(text.length)]), text]);
};

export const otlpAnswers = async (ctx: AppContext, next: Next): Promise<void> => {
  try {
    await next();
  } catch (thrown) {
    // What the body reader throws for a JSON export (malformed, too large, bad encoding) is the client's.
    const e = thrown as { status?: unknown; statusCode?: unknown; message?: unknown };
    const status = Number(e.status ?? e.statusCode);
    if (!(status >= 400 && status < 500)) throw thrown;
    ctx.status = status;
    ctx.body = { detail: typeof e.message === 'string' ? e.message : 'request refused' };
  }
  if (ctx.status < 400) {
    if (!ctx.is('json')) {
      ctx.type = 'application/x-protobuf';
      ctx.body = Buffer.alloc(0);
    }
    return;
  }
  const { status, code } = otlpStatusOf(ctx.status);
  const message = messageOf(ctx.body);
  ctx.status = status;
  if (ctx.is('json')) {
    ctx.type = 'application/json';
    ctx.body = { code, message };
  } else {
    ctx.type = 'application/x-protobuf';
    ctx.body = encodeStatus(code, message);
  }
};
