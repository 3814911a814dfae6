// A route's work apart from Koa: decode → cross-field checks → use case → domain error mapping. The
// request thread runs it for every route; an offload worker runs the very same code for large
// ingest bodies, so both paths answer alike by construction.
import { MAX_JSON_DEPTH, nestsDeeperThan, reportValidationErrors, ruleHolds, tooDeep, type ValidationError, valueError, type Where } from '@tracelight/api-schema';
import { type Principal, rekeyedId } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { type HttpError, toHttpError } from '../errors/domain-error.mapper';
import type { Decoder, HeaderCodec, Route } from './route';

export interface RouteRequest {
  readonly params: unknown;
  readonly query: unknown;
  /** The parsed body (`{}` when there was none). */
  readonly body: unknown;
  /** No JSON or form body was sent, or an empty one. A body of JSON `null` is taken as absent too. */
  readonly bodyAbsent?: boolean;
  /** Set on routes behind authentication. */
  readonly principal: Principal | undefined;
  readonly header: (name: string) => string | undefined;
  /** The name half of a Basic pair, on a route with `basicApiKey`. */
  readonly basicName?: string;
}

export type RouteOutcome =
  | { readonly ok: false; readonly error: HttpError }
  | { readonly ok: true; readonly status: number; readonly result: unknown };

const decodePart = <A>(
  codec: Decoder<A> | undefined,
  value: unknown,
  where: Where,
): E.Either<ValidationError[], A | undefined> => {
  if (!codec) return E.right(undefined);
  const result = codec.decode(value);
  return E.isLeft(result) ? E.left(reportValidationErrors(result.left, where)) : E.right(result.right);
};

/** The route's headers that were sent (an empty one is not sent), by name. */
const headersOf = (codec: HeaderCodec, header: (name: string) => string | undefined): Record<string, string> => {
  const sent: Record<string, string> = {};
  for (const name of Object.keys(codec.props)) {
    const value = header(name);
    if (value !== undefined) sent[name] = value;
  }
  return sent;
};

const unprocessable = (detail: ReadonlyArray<ValidationError>): RouteOutcome => ({ ok: false, error: { status: 422, body: { detail } } });

const requiredBodies = new WeakMap<Route, boolean>();
/**
 * Whether the route refuses an empty body: by its kind (an upload, bytes), by its codec (a required
 * field) or by its rule across fields. The spec's PATCH of insights settings, all optional, does not.
 * The OpenAPI document marks the request body required from the same answer.
 */
export const requiresBody = (r: Route): boolean => {
  let required = requiredBodies.get(r);
  if (required === undefined) {
    required =
      r.bodyKind === 'multipart' ||
      r.bodyKind === 'bytes' ||
      (r.bodyRule !== undefined && !ruleHolds(r.bodyRule, {})) ||
      (r.body !== undefined && E.isLeft(r.body.decode({})));
    requiredBodies.set(r, required);
  }
  return required;
};

/** FastAPI's answer to a required body that was not sent: one entry for the whole body. */
const MISSING_BODY: ValidationError = { loc: ['body'], msg: 'Field required', type: 'missing', input: null };

/**
 * Path parameters and body members that name what only the server makes (projects, runs, scorers, API
 * keys). Since the re-key migration none of those holds a version-7 id, so one presented is read as its
 * version-4 form (rekeyedId): ids clients held from before the upgrade (SDK configuration, bookmarks)
 * keep working. Record ids (traces', spans') are the clients' and are never read so.
 */
const SERVER_MADE_PARAMS: ReadonlyArray<string> = ['project_id', 'run_id', 'scorer_id', 'api_key_id'];
const SERVER_MADE_BODY_MEMBERS: ReadonlyArray<string> = ['log_stream_id', 'experiment_id', 'metrics_testing_id'];

/** `part` with the members `keys` names, when strings, re-keyed; `part` itself when none changes. */
const rekeyedMembers = <T>(part: T, keys: ReadonlyArray<string>): T => {
  if (typeof part !== 'object' || part === null || Array.isArray(part)) return part;
  const record = part as Record<string, unknown>;
  const changed = keys.filter((k) => typeof record[k] === 'string' && rekeyedId(record[k]) !== record[k]);
  if (changed.length === 0) return part;
  return { ...record, ...Object.fromEntries(changed.map((k) => [k, rekeyedId(record[k] as string)])) } as T;
};

export const runRoute = async (r: Route, request: RouteRequest): Promise<RouteOutcome> => {
  // Checked before anything walks the body recursively: decoding, an error's `input`, storage.
  // JSON `null` is no body, as FastAPI reads it: a required one is missing, an optional one takes its defaults.
  const absent = request.bodyAbsent === true || request.body === null;
  const sent = request.body ?? {};
  if (nestsDeeperThan(sent, MAX_JSON_DEPTH)) return unprocessable([tooDeep()]);
  const refusal = r.admits?.(sent);
  if (refusal !== undefined) return { ok: false, error: toHttpError(refusal) };
  const params = decodePart(r.params, request.params, 'path');
  const query = decodePart(r.query, request.query, 'query');
  const body = absent && requiresBody(r) ? E.left([MISSING_BODY]) : decodePart(r.body, sent, 'body');
  const headers = decodePart(r.headers, r.headers && headersOf(r.headers, request.header), 'header');
  if (E.isLeft(params) || E.isLeft(query) || E.isLeft(body) || E.isLeft(headers)) {
    return unprocessable([params, query, body, headers].flatMap((x) => (E.isLeft(x) ? x.left : [])));
  }
  const input = {
    params: rekeyedMembers(params.right, SERVER_MADE_PARAMS),
    query: query.right,
    body: rekeyedMembers(body.right, SERVER_MADE_BODY_MEMBERS),
    principal: request.principal!,
    header: request.header,
    ...(request.basicName === undefined ? {} : { basicName: request.basicName }),
  };
  if (r.bodyRule && !ruleHolds(r.bodyRule, input.body)) return unprocessable([valueError(['body'], r.bodyRule.message, input.body)]);
  const result = await r.handle(input)();
  return E.isLeft(result) ? { ok: false, error: toHttpError(result.left) } : { ok: true, status: r.status ?? 200, result: result.right };
};

/** How a route is named between threads. */
export const routeKey = (r: Pick<Route, 'method' | 'path'>): string => `${r.method.toUpperCase()} ${r.path}`;
