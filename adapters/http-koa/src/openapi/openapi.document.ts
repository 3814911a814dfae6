// The OpenAPI 3.1 document, generated from the route table and the io-ts codecs that validate the
// requests: one source of truth, never a hand-kept copy.
import { ErrorResponse, HTTPValidationErrorCodec, type JsonSchema, SchemaBuilder, withRuleSchema } from '@tracelight/api-schema';
import type * as t from 'io-ts';
import { API_KEY_SCHEMES, REFRESH_TOKEN_COOKIE } from '../auth/presented-credentials';
import type { Route } from '../shared/route';
import { requiresBody } from '../shared/route-runner';

/** Served without the /v2 prefix in the document (the spec's token URL, the probes, OTLP). */
const UNVERSIONED = /^\/(login|healthcheck|readyz|otel|v1)(\/|$)/;

export const documentedPath = (route: Route): string => (UNVERSIONED.test(route.path) ? route.path : `/v2${route.path}`);

const propsOf = (codec: t.Decoder<unknown, unknown> | undefined): Record<string, t.Decoder<unknown, unknown>> =>
  ((codec as unknown as { props?: Record<string, t.Decoder<unknown, unknown>> } | undefined)?.props ?? {});

const BODY_TYPES: Record<string, ReadonlyArray<string>> = {
  json: ['application/json'],
  form: ['application/x-www-form-urlencoded', 'application/json'],
  multipart: ['multipart/form-data'],
  bytes: ['application/x-protobuf', 'application/json'],
};

/** A success's media types: JSON, or what the route writes instead; OTLP answers in the request's encoding. */
const successContent = (r: Route, schema: JsonSchema): Record<string, { schema: JsonSchema }> => {
  if (r.responseType) return { [r.responseType]: { schema } };
  if (r.bodyKind === 'bytes') return { 'application/json': { schema }, 'application/x-protobuf': { schema: { type: 'string', format: 'binary' } } };
  return { 'application/json': { schema } };
};

/**
 * Every credential the server takes, as a security scheme: the spec's four, the SDKs' API-key header
 * aliases (the authentication middleware's own table) and the refresh cookie.
 */
const SECURITY_SCHEMES = {
  ...Object.fromEntries(API_KEY_SCHEMES.map(({ scheme, header }) => [scheme, { type: 'apiKey', in: 'header', name: header }])),
  OAuth2PasswordBearer: { type: 'oauth2', flows: { password: { scopes: {}, tokenUrl: 'login' } } },
  HTTPBasic: { type: 'http', scheme: 'basic' },
  APIKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key as a bearer credential, `Authorization: Bearer <API key>`, as OTLP exporters send one (Phoenix); a token from sign-in (a JWT, which has dots) is OAuth2PasswordBearer.',
  },
  APIKeyBasicPair: {
    type: 'http',
    scheme: 'basic',
    description:
      "On Langfuse's OTLP path only, in place of HTTPBasic: `<project>:<API key>`, as Langfuse's exporters send publicKey:secretKey. The API key authenticates; the name is the project the export goes to, created on first use.",
  },
  RefreshTokenCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: REFRESH_TOKEN_COOKIE,
    description:
      'HttpOnly cookie set at sign-in; taken by POST /v2/refresh_token when no Authorization header is sent. Single use: each refresh answers a new one, and a spent one sent again revokes its session.',
  },
};

/** The response headers the server sends, by reference from the answers that carry them. */
const HEADERS = {
  'X-Request-Id': {
    description: 'The request’s id, on every answer and on its log line: the caller’s X-Request-Id when it is a plain token of at most 128 characters (A-Z a-z 0-9 . _ -), else a new UUID.',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,128}$' },
  },
  'WWW-Authenticate': { description: 'The schemes the route takes (RFC 9110 §11.6.1).', required: true, schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
} as const;
const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
/** What each status says in its headers, beside X-Request-Id: the challenge of a 401, when to come back after a 429 (always) or a 503 (when it says). */
const HEADERS_OF: Readonly<Record<string, ReadonlyArray<keyof typeof HEADERS>>> = { '401': ['WWW-Authenticate'], '429': ['Retry-After'], '503': ['Retry-After'] };
const RETRY_AFTER_REQUIRED = { ...HEADERS['Retry-After'], required: true };

/** Each response with the headers its status carries, beside those it declares itself (Set-Cookie). */
const withHeaders = (responses: Record<string, object>) =>
  Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      {
        ...response,
        headers: {
          ...(response as { headers?: Record<string, unknown> }).headers,
          'X-Request-Id': header('X-Request-Id'),
          ...Object.fromEntries((HEADERS_OF[status] ?? []).map((name) => [name, status === '429' ? RETRY_AFTER_REQUIRED : header(name)])),
        },
      },
    ]),
  );

/** Alternatives: any one of them will do. */
const SIGNED_IN = [...API_KEY_SCHEMES.map((s) => s.scheme), 'OAuth2PasswordBearer', 'HTTPBasic', 'APIKeyBearer'].map((scheme) => ({ [scheme]: [] }));
/** A route whose Basic pair is a name and an API key (`basicApiKey`): no email and password there. */
const API_KEY_PAIR = [...API_KEY_SCHEMES.map((s) => s.scheme), 'OAuth2PasswordBearer', 'APIKeyBearer', 'APIKeyBasicPair'].map((scheme) => ({ [scheme]: [] }));
const REFRESH = [{ OAuth2PasswordBearer: [] }, { RefreshTokenCookie: [] }];
/** Where API keys and users are managed: a password only, as HTTP Basic or a password sign-in's bearer token (not one exchanged for an API key). */
const PASSWORD = [{ OAuth2PasswordBearer: [] }, { HTTPBasic: [] }];

export const openApiDocument = (routes: ReadonlyArray<Route>, version: string): JsonSchema => {
  const schemas = new SchemaBuilder();
  // The error shapes come from the schema package's codecs like everything else.
  const ERROR = schemas.schemaOf(ErrorResponse);
  const VALIDATION_ERROR = schemas.schemaOf(HTTPValidationErrorCodec);
  const apiError = (description: string) => ({ description, content: { 'application/json': { schema: ERROR } } });
  // OTLP/HTTP answers its errors as a google.rpc.Status, in the request's encoding.
  const otlpError = (description: string) => ({
    description,
    content: {
      'application/json': { schema: { type: 'object', properties: { code: { type: 'integer' }, message: { type: 'string' } }, required: ['code', 'message'] } },
      'application/x-protobuf': { schema: { type: 'string', format: 'binary', description: 'google.rpc.Status' } },
    },
  });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const parameters = [
      ...Object.entries(propsOf(r.params)).map(([name, c]) => ({ name, in: 'path', required: true, schema: schemas.schemaOf(c) })),
      ...Object.entries(propsOf(r.query)).map(([name, c]) => ({ name, in: 'query', required: false, schema: schemas.schemaOf(c) })),
      ...Object.entries(propsOf(r.headers)).map(([name, c]) => ({ name, in: 'header', required: true, schema: schemas.schemaOf(c) })),
    ];
    // A route's rule across body members is part of its body's schema, as a codec's own rule is.
    const codecSchema = r.body ? schemas.schemaOf(r.body) : undefined;
    const bodySchema = codecSchema && r.bodyRule ? withRuleSchema(codecSchema, r.bodyRule) : codecSchema;
    const error = r.errors === 'otlp' ? otlpError : apiError;
    const operation = {
      operationId: `${r.method}_${documentedPath(r).replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
      summary: r.summary,
      ...(r.description !== undefined ? { description: r.description } : {}),
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(bodySchema
        ? {
            requestBody: {
              // Required where an empty body is refused, as the route runner decides it.
              required: requiresBody(r),
              content: Object.fromEntries((BODY_TYPES[r.bodyKind ?? 'json'] ?? BODY_TYPES['json']!).map((type) => [type, { schema: bodySchema }])),
            },
          }
        : {}),
      responses: withHeaders({
        [String(r.status ?? 200)]: {
          description: 'Successful Response',
          ...(r.setsCookie
            ? {
                headers: {
                  'Set-Cookie': {
                    description: `\`${r.setsCookie}=…; HttpOnly; SameSite=Strict; Path=/\` (and \`Secure\` over HTTPS): the refresh token, when one is issued`,
                    schema: { type: 'string' },
                  },
                },
              }
            : {}),
          content: successContent(r, r.response ? schemas.schemaOf(r.response) : {}),
        },
        ...(r.auth === 'required' || r.checksCredential
          ? {
              '401': {
                ...error('Missing or wrong credentials'),
                ...(r.clearsCookie
                  ? {
                      headers: {
                        'Set-Cookie': {
                          description: `\`${r.clearsCookie}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict\` (and \`Secure\` over HTTPS): expires the refresh cookie when it was the credential refused (sent without an Authorization header)`,
                          schema: { type: 'string' },
                        },
                      },
                    }
                  : {}),
              },
            }
          : {}),
        ...(r.auth === 'required' && r.method !== 'get' && r.readsOnly !== true ? { '403': error('The caller may not do this: its role (a read-only user changes no data), or, for API keys and users, a credential resting on an API key (they are managed with a password)') } : {}),
        '404': error('Not found, or not the caller’s'),
        ...(r.conflict ? { '409': error(r.conflict) } : {}),
        ...(r.body ? { '413': error('Request body too large'), '415': error('A body of another content type than the route takes') } : {}),
        ...(r.errors === 'otlp'
          ? { '400': otlpError('Bad data (not an OTLP export, invalid ids or headers): not to be retried') }
          : { '422': { description: 'Validation Error', content: { 'application/json': { schema: VALIDATION_ERROR } } } }),
        ...(r.unlimited ? {} : { '429': error('Past the rate limit: try again after Retry-After seconds') }),
        ...(r.path === '/healthcheck' ? {} : { '503': error(r.timesOut ? `Storage unavailable: try again; or ${r.timesOut}` : 'Storage unavailable: try again') }),
        // Where data may be written (as for 403): storage full, nothing stored; not to be retried until space is freed.
        ...(r.auth === 'required' && r.method !== 'get' && r.readsOnly !== true ? { '507': error('Insufficient storage: the write was not stored; try again once space has been freed') } : {}),
        // Any request can arrive too slowly (its headers, or its body): Node answers it (refusals.ts), as JSON too.
        '408': apiError('Request timeout: the request did not arrive in time (its headers within the shorter of TRACELIGHT_REQUEST_TIMEOUT_MS and 60 s, the whole of it within TRACELIGHT_REQUEST_TIMEOUT_MS)'),
      }),
      ...(r.auth === 'required'
        ? { security: r.needsPassword ? PASSWORD : r.basicApiKey ? API_KEY_PAIR : SIGNED_IN }
        : r.checksCredential === 'bearer_or_refresh_cookie'
          ? { security: REFRESH }
          : {}),
    };
    paths[documentedPath(r)] = { ...paths[documentedPath(r)], [r.method]: operation };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tracelight',
      version,
      description:
        'Observability and evaluation for LLM applications. Every route is also served with the other prefix (with and without /v2), as the origin service’s SDKs call it.',
    },
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: SECURITY_SCHEMES,
      headers: HEADERS,
    },
  };
};
