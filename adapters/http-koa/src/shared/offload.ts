// Large bodies of heavy routes (trace ingestion, OTLP exports) are parsed, validated and stored off
// the request thread, so that one 10 MB batch does not hold every other request up. The request thread still
// authenticates, limits, logs and times the request; an offload worker (its own container, the same
// routes and use cases) does the rest with `serveOffloaded`.
import type { Principal } from '@tracelight/domain';
import type { HttpError } from '../errors/domain-error.mapper';
import { headerText } from './header-text';
import { parseJsonBody } from './json-body';
import type { Route } from './route';
import { runRoute } from './route-runner';

export interface OffloadedRequest {
  /** `routeKey` of the route. */
  readonly route: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, unknown>>;
  /** The body as received (inflated), not yet parsed. */
  readonly body: Uint8Array;
  /** `json`: parsed as the request thread's JSON parser would; `bytes`: handed to the route as a Buffer (a protobuf export). */
  readonly bodyType: 'json' | 'bytes';
  readonly principal: Principal | undefined;
  /** Request headers, lower-case, without credentials. */
  readonly headers: Readonly<Record<string, string>>;
  /** On a route with `basicApiKey`: the name half of its Basic pair (not a credential; the key is not sent). */
  readonly basicName?: string;
}

export interface OffloadedReply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** For the request thread's log line (HttpError.reason); never sent. */
  readonly reason?: string;
}

/** Where offloaded requests go; bound by the composition root when it runs offload workers. */
export interface RouteOffload {
  /** Bodies of at least this many bytes (inflated, when the size is known only once read) are offloaded. */
  readonly minBytes: number;
  run(request: OffloadedRequest): Promise<OffloadedReply>;
}
export const RouteOffload = Symbol.for('tracelight.RouteOffload');

const reply = (error: HttpError): OffloadedReply => ({
  status: error.status,
  body: error.body,
  ...(error.headers ? { headers: error.headers } : {}),
  ...(error.reason !== undefined ? { reason: error.reason } : {}),
});

/** An offload worker's handling of one request: parse, then exactly what the request thread would do. */
export const serveOffloaded = async (routes: ReadonlyMap<string, Route>, request: OffloadedRequest): Promise<OffloadedReply> => {
  const r = routes.get(request.route);
  if (!r) return { status: 404, body: { detail: 'Not Found' } };
  const bytes = Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength);
  const parsed = request.bodyType === 'bytes' ? { ok: true as const, value: bytes, absent: false } : parseJsonBody(bytes);
  if (!parsed.ok) return reply(parsed.error);
  const outcome = await runRoute(r, {
    params: request.params,
    query: request.query,
    body: parsed.value,
    bodyAbsent: request.bodyType === 'json' && parsed.absent,
    principal: request.principal,
    header: (name) => {
      const value = request.headers[name.toLowerCase()];
      return value ? headerText(value) : undefined;
    },
    ...(request.basicName === undefined ? {} : { basicName: request.basicName }),
  });
  return outcome.ok ? { status: outcome.status, body: r.present(outcome.result) } : reply(outcome.error);
};
