// A route is data: method, spec-style path, the codecs that validate it, and decode → use case → encode.
// The same table drives the Koa router now and can drive the OpenAPI document later.
import type { FieldRule } from '@tracelight/api-schema';
import type { DomainError, Principal } from '@tracelight/domain';
import type { UseCase } from '@tracelight/use-cases';
import type * as t from 'io-ts';
import type { HttpError } from '../errors/domain-error.mapper';
import type { AppContext } from './context';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * `json` also accepts an absent body (as `{}`); `form` accepts form-encoded or JSON; `multipart` parses
 * uploads; `bytes` hands a non-JSON body over as a Buffer (gzip inflated), and JSON as parsed.
 */
export type BodyKind = 'none' | 'json' | 'form' | 'multipart' | 'bytes';

export interface RouteInput<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Present on routes with `auth: 'required'`. */
  readonly principal: Principal;
  readonly header: (name: string) => string | undefined;
  /** On a route with `basicApiKey`: the name half of the request's Basic pair, if it sent one. */
  readonly basicName?: string;
}

export type Decoder<A> = t.Decoder<unknown, A> & { readonly name: string };

/** An object codec of header names (`t.type`): its members name the headers read. */
export type HeaderCodec = Decoder<unknown> & { readonly props: Readonly<Record<string, t.Mixed>> };

export interface Route<P = unknown, Q = unknown, B = unknown, A = unknown> {
  readonly method: HttpMethod;
  /** OpenAPI form, e.g. `/projects/{project_id}`. */
  readonly path: string;
  readonly summary: string;
  /** More than the summary says: the spec's operations keep its names as their summaries, and say the rest here. */
  readonly description?: string;
  readonly auth: 'required' | 'none';
  /**
   * HTTP Basic on this route is `<name>:<API key>` (Langfuse's publicKey:secretKey), not an email and a
   * password: the API key authenticates, and the name reaches the handler as `basicName`.
   */
  readonly basicApiKey?: true;
  /** Left out of the rate limit: the probes, which an orchestrator calls from one address. */
  readonly unlimited?: boolean;
  /** Its answer holds a credential (a token, a new API key): sent with `Cache-Control: no-store`. */
  readonly answersSecret?: boolean;
  /**
   * For documentation: a route without `auth: 'required'` that still checks a credential of its own
   * (sign-in, refresh) and so answers 401: `body` when the credential is in the body (not a security
   * scheme); `bearer_or_refresh_cookie` when it is a bearer token or, without one, the refresh cookie.
   */
  readonly checksCredential?: 'bearer_or_refresh_cookie' | 'body';
  /**
   * For documentation: a route whose method would change data (POST, …) that only reads (a search, the
   * column catalogue): it answers neither 403 for a read-only user nor 507 for full storage.
   */
  readonly readsOnly?: boolean;
  /**
   * For documentation: the route manages credentials (API keys, users), which its use case allows only
   * a password principal (mayManageCredentials): documented with the password schemes alone.
   */
  readonly needsPassword?: boolean;
  /** For documentation: when the route answers 409. */
  readonly conflict?: string;
  /** For documentation: when the route's work has a time budget, what its 503 then says besides storage being unavailable. */
  readonly timesOut?: string;
  /** For documentation: the cookie a success may set (a `write` sets it). */
  readonly setsCookie?: string;
  /** For documentation: the cookie a 401 may expire (a `writeRefusal` expires it). */
  readonly clearsCookie?: string;
  /** For documentation: the media type of a success that is not JSON (a `write` sends it). */
  readonly responseType?: string;
  /** `otlp`: answered as OTLP/HTTP asks: errors as a google.rpc.Status (400 for bad data), not the API's bodies, and in the request's encoding. */
  readonly errors?: 'otlp';
  readonly params?: Decoder<P>;
  readonly query?: Decoder<Q>;
  readonly body?: Decoder<B>;
  readonly bodyKind?: BodyKind;
  /** The response codec, for documentation. */
  readonly response?: t.Any;
  readonly status?: number;
  /**
   * A rule across the decoded body's members (exactly / at least one of …): checked after decoding,
   * as one `value_error` at `['body']` with the decoded body as input, and documented in the body's
   * schema from the same data.
   */
  readonly bodyRule?: FieldRule;
  /**
   * The request headers the route requires (lower-case names), validated like the other parts (`loc`
   * starts with `header`) and documented as header parameters; the handler reads them with `header`.
   */
  readonly headers?: HeaderCodec;
  readonly handle: (input: RouteInput<P, Q, B>) => UseCase<A>;
  readonly present: (result: A) => unknown;
  /**
   * Heavy routes (trace ingestion, OTLP exports): a body of RouteOffload.minBytes or more is parsed,
   * validated and handled by an offload worker, off the request thread. Such a route answers with its
   * presented result (no `write`), which is what crosses back from the worker.
   */
  readonly offload?: boolean;
  /**
   * The largest JSON or form body the route takes, inflated, when that is less than TRACELIGHT_BODY_LIMIT:
   * for a route open to anyone (the sign-in routes), whose bodies are small, so that no one can make the
   * server read and parse megabytes (a few KB gzipped inflate to them) before knowing who asks.
   */
  readonly bodyLimitBytes?: number;
  /**
   * Asked of the body as parsed (or its bytes), before it is decoded: a refusal that costs less than
   * decoding, for what decoding would first build whole only to refuse (a batch of too many records).
   */
  readonly admits?: (body: unknown) => DomainError | undefined;
  /** For responses that are not JSON (a scorer's source file): writes the body itself. Not with `offload`. */
  readonly write?: (ctx: AppContext, result: A) => void;
  /** Adds to a refusal of the route's own (not a body's) once its status and body are written: expiring a refused cookie. Not with `offload`. */
  readonly writeRefusal?: (ctx: AppContext, error: HttpError) => void;
}

/** Keeps each route's types checked while letting groups hold routes of different types. */
export const route = <P, Q, B, A>(r: Route<P, Q, B, A>): Route => r as unknown as Route;

export interface RouteGroup {
  routes(): ReadonlyArray<Route>;
}
export const RouteGroup = Symbol.for('tracelight.RouteGroup');
