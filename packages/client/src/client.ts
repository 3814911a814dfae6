// A typed client for the Tracelight API: the four credential schemes, tokens that refresh themselves,
// and a bound on every exchange. Response types come from the same io-ts codecs the server documents
// them with.
import type {
  PreciseTime,
  ExperimentResponse,
  ListScorersResponse,
  LogRecordsExportRequest,
  LogSpansIngestRequest,
  LogSpansIngestResponse,
  LogSpanUpdateRequest,
  LogSpanUpdateResponse,
  LogTraceUpdateRequest,
  LogTraceUpdateResponse,
  ScorerFilterWire,
  ApiKeyCreateResponse,
  ApiKeyResponse,
  FilterWire,
  HealthResponse,
  IntegrationRecord,
  ListScorerVersionsResponse,
  LogTracesIngestRequest,
  LogTracesIngestResponse,
  MetricInfoResponse,
  MetricValueResponse,
  OtlpExportResponse,
  ProjectResponse,
  ProjectType,
  ReadyResponse,
  RecomputeMetricsResponse,
  RunScoringStatusResponse,
  RecordSearchRequest,
  RecordSearchResponse,
  RunInsightsResponse,
  RunResponse,
  RunScorerSettingsResponse,
  ScorerResponse,
  ScorerVersion,
  SessionCreateRequest,
  SessionResponse as SessionResponseCodec,
  SpansAvailableColumnsResponse,
  TokenResponse,
  UserResponse,
  UserRole,
  ValidationError,
} from '@tracelight/api-schema';
import type * as t from 'io-ts';

/** The headers an API key is taken in: the spec's two, then the origin SDKs' aliases. */
export type ApiKeyHeader = 'Service-API-Key' | 'Service-AO-API-Key' | 'Galileo-API-Key' | 'Splunk-AO-API-Key';

export type Credentials =
  | { readonly apiKey: string; readonly header?: ApiKeyHeader }
  | { readonly bearer: string }
  | { readonly basic: { readonly email: string; readonly password: string } }
  /**
   * Signs in (the password flow, or an API key exchanged at /login/api_key), then keeps a fresh bearer
   * token: refreshed before it expires, and once it has, renewed with the refresh cookie of the sign-in.
   */
  | { readonly login: Login }
  /**
   * A person's session, as a web page keeps one: `startSession` (the password flow) begins it and the
   * refresh cookie of the sign-in carries it on. The token is refreshed before it expires and, once it
   * has (or after a page reload, with none held), renewed with the refresh cookie. No password is kept:
   * when the session can no longer be renewed (it ended, was signed out or revoked), calls fail with the
   * server's 401, whose detail says why, and signing in again is the person's to do. In a browser the
   * cookie is the browser's own (HttpOnly: this code never sees it, the browser sends it to the same
   * origin); elsewhere the client keeps the cookie the server sets, as it does for `login`.
   */
  | { readonly session: 'cookie' };
type Login = { readonly email: string; readonly password: string } | { readonly apiKey: string };

export interface ClientOptions {
  /** Milliseconds one HTTP exchange (sign-in and refresh included) may take before it is abandoned; 30 s by default. */
  readonly timeoutMs?: number;
  /** The fetch to send with (a recording one in tests, say); the global fetch by default. */
  readonly fetch?: typeof fetch;
  /**
   * The client's clock, in milliseconds since the epoch as `Date.now` (the default) gives them. Every
   * time decision of the client reads it: when a token is refreshed or held spent, when a refresh cookie
   * runs out, how long a failed sign-in or refresh holds off the next, a Retry-After date. It is never
   * compared with the server's clock: a token's lifetime and a cookie's are counted on it from when the
   * request that got them was sent. Tests move a fake one forward instead of waiting. Timeouts
   * (`timeoutMs`, a call's signal) run on the platform's timers, not on it.
   */
  readonly now?: () => number;
}

/** Per call: a signal that abandons the call (its sign-in or refresh wait included). */
export interface CallOptions {
  readonly signal?: AbortSignal;
}

/** Options of the calls that send large bodies (trace ingestion, OTLP exports). */
export interface SendOptions extends CallOptions {
  /**
   * Send the body gzip-compressed (`Content-Encoding: gzip`), as OTLP exporters do: a tenth of the
   * bytes for typical traces, for some CPU on both sides. Off by default.
   */
  readonly gzip?: boolean;
}

/**
 * Any failure of a call. `status` is the HTTP status, or 0 when no answer came: a timeout, an
 * aborted call or a network failure (the underlying error is the `cause`). `retryAfter` is the
 * server's Retry-After in seconds, on a 429 or 503 that sent one.
 */
export class TracelightError extends Error {
  override readonly name = 'TracelightError';
  readonly retryAfter: number | undefined;

  constructor(
    readonly status: number,
    readonly detail: string | ReadonlyArray<ValidationError>,
    options: { readonly retryAfter?: number; readonly cause?: unknown } = {},
  ) {
    super(
      status === 0
        ? `No answer from Tracelight: ${String(detail)}`
        : `Tracelight answered ${status}: ${typeof detail === 'string' ? detail : detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; ')}`,
      'cause' in options ? { cause: options.cause } : undefined,
    );
    this.retryAfter = options.retryAfter;
  }
}

export type UserRoleName = t.TypeOf<typeof UserRole>;
export type ProjectTypeName = t.TypeOf<typeof ProjectType>;

/** The answers' shapes, by what they describe (the codecs' decoded types), for a consumer that keeps them. */
export type User = t.TypeOf<typeof UserResponse>;
export type Project = t.TypeOf<typeof ProjectResponse>;
export type Run = t.TypeOf<typeof RunResponse>;
/** One column of `available_columns`. */
export type Column = t.TypeOf<typeof SpansAvailableColumnsResponse>['columns'][number];
export type Scorer = t.TypeOf<typeof ScorerResponse>;
export type ScorerVersionRecord = t.TypeOf<typeof ScorerVersion>;
export type ScorerVersionPage = t.TypeOf<typeof ListScorerVersionsResponse>;
export type RunScorers = t.TypeOf<typeof RunScorerSettingsResponse>;
export type RunInsights = t.TypeOf<typeof RunInsightsResponse>;
export type ApiKey = t.TypeOf<typeof ApiKeyResponse>;
export type CreatedApiKey = t.TypeOf<typeof ApiKeyCreateResponse>;
export type Integration = t.TypeOf<typeof IntegrationRecord>;

type RunKind = { log_stream_id: string } | { experiment_id: string } | { metrics_testing_id: string };
/**
 * A request codec's decoded type as a caller writes it: a timestamp may be a Date (sent as its ISO
 * text) or the text the codec reads into one.
 */
type Sendable<T> = T extends Date
  ? Date | string
  : T extends PreciseTime
    ? Date | string
  : T extends ReadonlyArray<infer U>
    ? Array<Sendable<U>>
    : T extends object
      ? { [K in keyof T]: Sendable<T[K]> }
      : T;
/** The body of `POST /v2/projects/{project_id}/traces`, as its codec takes it, naming its run by one of the three ids. */
export type TracesIngest = RunKind & Omit<Sendable<t.TypeOf<typeof LogTracesIngestRequest>>, 'log_stream_id' | 'experiment_id' | 'metrics_testing_id'>;
/** Its answer: the run named back by the id the request gave, and `trace_ids` when it asked with `include_trace_ids`. */
export type TracesIngested = t.TypeOf<typeof LogTracesIngestResponse>;
/** The run's three ids, which the search and session methods take apart from the rest of the body. */
type RunIds = 'log_stream_id' | 'experiment_id' | 'metrics_testing_id';
/** A search filter as its codec takes it: each filter type with its own operators and value (a date as a Date or its text). */
export type RecordFilter = Sendable<FilterWire>;
/** The body of a record search beside the run, as its codec takes it. */
export type RecordSearch = Omit<Sendable<t.TypeOf<typeof RecordSearchRequest>>, RunIds | 'filters' | 'sort'> & {
  filters?: RecordFilter[] | null;
  /** `ascending` is true unless said (the codec's default). */
  sort?: { column_id: string; ascending?: boolean } | null;
};
/** A metric's value on a record: a number, or, for categorical and multilabel judges, a label or labels. */
export type MetricValue = t.TypeOf<typeof MetricValueResponse>;
/**
 * What a record says of one of its scorers (`metric_info`), as the evaluation engine writes it: its
 * status, and for a success the value, level, the judges' explanations and a roll-up's method.
 */
export type MetricInfo = t.TypeOf<typeof MetricInfoResponse>;
/** A metric's status on a record (`metric_info[name].status_type`). */
export type MetricStatus = MetricInfo['status_type'];
/** A stored trace, span or session as a search answers it: the listed fields and the typed attributes of its type (model, tools, …). */
export type StoredRecord = t.TypeOf<typeof RecordSearchResponse>['records'][number] & {
  readonly [attribute: string]: unknown;
};
/** A page of records (a record keeps the typed attributes of its type besides the listed fields). */
export type RecordPage = Omit<t.TypeOf<typeof RecordSearchResponse>, 'records'> & { readonly records: StoredRecord[] };
/** A run's scoring status (`GET …/metrics/status`): per scorer version, its jobs by state, the last error and the tokens used. */
export type RunScoringStatus = t.TypeOf<typeof RunScoringStatusResponse>;
/** Immediate mode: the body of `POST …/spans` beside the run (spans under a trace, below a parent). */
export type SpansAppend = Omit<Sendable<t.TypeOf<typeof LogSpansIngestRequest>>, RunIds>;
/** Immediate mode: the changes of `PATCH …/traces/{trace_id}` (the trace's id goes in the path and the body alike). */
export type TraceUpdate = Omit<Sendable<t.TypeOf<typeof LogTraceUpdateRequest>>, RunIds | 'trace_id'>;
/** Immediate mode: the changes of `PATCH …/spans/{span_id}`. */
export type SpanUpdate = Omit<Sendable<t.TypeOf<typeof LogSpanUpdateRequest>>, RunIds | 'span_id'>;
/** The body of `POST …/export_records` beside the run. */
export type RecordsExport = Omit<Sendable<t.TypeOf<typeof LogRecordsExportRequest>>, RunIds | 'filters' | 'sort' | 'export_format'> & {
  filters?: RecordFilter[] | null;
  sort?: { column_id: string; ascending?: boolean } | null;
  export_format?: 'jsonl' | 'json' | 'csv';
};
/** The fields of `SessionCreateRequest` beside the run, as its codec takes them. */
export type SessionCreate = Omit<t.TypeOf<typeof SessionCreateRequest>, RunIds>;
export type SessionResponse = t.TypeOf<typeof SessionResponseCodec>;
/** Where an OTLP export goes: the `project` and `logstream` headers the OTLP routes require. */
export interface OtlpDestination {
  /** An existing project: its name or id. */
  readonly project: string;
  /** A log stream of the project, by name: created on first use. */
  readonly logstream: string;
  /** The route: OTLP/HTTP's standard path by default, or the origin's, which is the same route. */
  readonly path?: '/v1/traces' | '/otel/traces';
}
/**
 * An OTLP ExportTraceServiceRequest (opentelemetry-proto trace/v1): its protobuf bytes (sent as
 * `application/x-protobuf`), or its OTLP/JSON form (ids in hex, times as strings of nanoseconds).
 */
export type OtlpTraceExport = Uint8Array | { readonly resourceSpans?: ReadonlyArray<object> };
/** The answer to an accepted export: OTLP/HTTP's ExportTraceServiceResponse, empty. */
export type OtlpExportAnswer = t.TypeOf<typeof OtlpExportResponse>;
/** The form fields of `POST /v2/scorers/{scorer_id}/version/code` beside the file. */
export interface CodeVersionFields {
  /** A validation result already obtained, as JSON text: kept as sent. */
  validation_result?: string;
  scoreable_node_types?: ReadonlyArray<string>;
}

interface RequestOptions extends SendOptions {
  readonly json?: unknown;
  readonly form?: Record<string, string>;
  readonly body?: FormData;
  readonly protobuf?: Uint8Array;
  /** Headers of the route's own (OTLP's `project` and `logstream`); the credential's are added to them. */
  readonly headers?: Record<string, string>;
  readonly query?: Record<string, string | number | undefined>;
  readonly anonymous?: boolean;
  /**
   * `text`: the answer is returned as text, not parsed as JSON. `otlp`: an OTLP/HTTP answer, whose
   * errors are a google.rpc.Status (JSON, or protobuf for a protobuf request) and whose success to a
   * protobuf request is an empty body.
   */
  readonly answer?: 'json' | 'text' | 'otlp';
}

/** One exchange's outcome: the response with its body read, and the login token it carried. */
interface Exchanged extends Answered {
  readonly token: string | undefined;
}

/** A response with its body read: as text, or as bytes when it is protobuf (an OTLP answer's). */
interface Answered extends Sent {
  readonly res: Response;
  /** Empty when the body was read as `bytes`. */
  readonly text: string;
  readonly bytes?: Uint8Array;
  /** When the answer came, on the client's clock (seconds since the epoch). */
  readonly receivedAt: number;
}

/** When a request that got a token or a cookie went, and the answer's own time, to count their lifetimes from. */
interface Sent {
  /** On the client's clock, seconds since the epoch. */
  readonly sentAt: number;
  /** The answer's Date header on the server's clock (seconds since the epoch), when it sent one. */
  readonly serverDate?: number;
}

/** The refresh cookie a sign-in set, sent back to POST /v2/refresh_token once the access token has expired. */
interface HeldCookie {
  readonly value: string;
  /** On the client's clock, seconds since the epoch; Infinity for a cookie without Expires or Max-Age. */
  readonly expiresAt: number;
}

/** A login token, and when to refresh it and when it is spent, on the client's clock (seconds since the epoch). */
interface HeldToken {
  readonly value: string;
  readonly expiresAt: number;
  readonly refreshAt: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** At most this many seconds before expiry a login token is refreshed… */
const REFRESH_MARGIN_SECONDS = 30;
/** …and at most this share of its lifetime, so that short-lived tokens are not refreshed on every request. */
const REFRESH_MARGIN_SHARE = 0.25;
/** After a failed refresh or sign-in the next try waits up to 1 s, then twice as long after each further failure… */
const RETRY_FIRST_SECONDS = 1;
/** …up to this (a failed sign-in's error is answered for that long, so it stays short)… */
const RETRY_MAX_SECONDS = 10;
/** …unless the server asked for longer with Retry-After (429, 503), which is honoured up to this. */
const RETRY_AFTER_MAX_SECONDS = 300;
/**
 * A JWT's iat and an HTTP Date are whole seconds, rounded down: what they stamp may have happened up to
 * this much later than they say, and so have that much less of its lifetime left.
 */
const WHOLE_SECOND = 1;

/** `text`'s UTF-8 bytes in base64 (Basic credentials), by the web's built-ins: no Node Buffer, so the client runs in browsers too. */
const base64OfUtf8 = (text: string): string => {
  let binary = '';
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
};

/** The UTF-8 text of base64url (a JWT's part), likewise; throws on what is not base64. */
const utf8OfBase64Url = (part: string): string => {
  const base64 = part.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4));
  return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};

const claimsOf = (token: string): { exp?: number; iat?: number } => {
  try {
    return JSON.parse(utf8OfBase64Url(token.split('.')[1] ?? '')) as { exp?: number; iat?: number };
  } catch {
    return {};
  }
};

/**
 * A token timed on the client's own clock, which may be off the server's by any amount (a laptop's often
 * is): its lifetime (exp - iat) counted from when the request that got it was sent, before the server
 * made it. A whole-second iat may be up to a second older than the token, so its last second is not
 * counted: the client sends no token the server already holds expired. Without iat the answer's Date
 * stands in for it; without either, exp can only be read on the client's clock.
 */
const held = (token: string, sent: Sent): HeldToken => {
  const { exp = 0, iat } = claimsOf(token);
  const issuedAt = iat ?? sent.serverDate;
  if (issuedAt === undefined) return { value: token, expiresAt: exp, refreshAt: exp - REFRESH_MARGIN_SECONDS };
  const lifetime = exp - issuedAt;
  const margin = Math.min(REFRESH_MARGIN_SECONDS, lifetime * REFRESH_MARGIN_SHARE);
  const expiresAt = sent.sentAt + lifetime - (Number.isInteger(issuedAt) ? WHOLE_SECOND : 0);
  return { value: token, expiresAt, refreshAt: Math.min(sent.sentAt + lifetime - margin, expiresAt) };
};

/** An answer's Date header in seconds since the epoch (the server's clock), when it has a valid one. */
const dateOf = (res: Response): number | undefined => {
  const at = Date.parse(res.headers.get('date') ?? '');
  return Number.isNaN(at) ? undefined : at / 1000;
};

/**
 * The wait after the `failures`-th failure in a row: exponential, capped, and drawn from its upper half
 * so that clients that failed together do not all come back in the same instant.
 */
const retryDelaySeconds = (failures: number): number => {
  const ceiling = Math.min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** (failures - 1));
  return ceiling * (0.5 + Math.random() / 2);
};

/** A refresh that got no answer, a 5xx or a 429: the token held is kept; the server may say when to ask again. */
interface Unavailable {
  /** Seconds, from Retry-After. */
  readonly retryAfter: number | undefined;
  /** What became of it, for a caller that has no token to go on with. */
  readonly error: TracelightError;
}

/** A refresh the server refused (4xx): its error, whose detail says why (a session ended, revoked, …). */
interface Refused {
  readonly refused: TracelightError;
}

/** Failed renewals since the last token was adopted, and when the next may be tried. */
interface Backoff {
  readonly failures: number;
  /** Seconds since the epoch. */
  readonly retryAt: number;
  /** A failed sign-in's error, answered until `retryAt`; absent after a refresh that got no answer. */
  readonly failedSignIn?: { readonly error: unknown };
}

export class TracelightClient {
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private token: HeldToken | undefined;
  /** The refresh cookie of the session `token` belongs to, kept from the client's own sign-ins and refreshes only. */
  private refreshCookie: HeldCookie | undefined;
  /** The sign-in or refresh under way, shared by every request waiting for a token. */
  private renewing: Promise<string> | undefined;
  /** Set while renewals fail, so that a struggling server is not asked again by every request. */
  private backoff: Backoff | undefined;
  /** The client's clock (ClientOptions.now), read for every time decision. */
  private readonly now: () => number;

  constructor(
    baseUrl: string,
    private readonly credentials: Credentials,
    options: ClientOptions = {},
  ) {
    // Paths start with a slash: `http://host/` + `/v2/…` would ask for `//v2/…`, which no route serves.
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // Called as a method of the client, a browser's own fetch throws "Illegal invocation": it must be called on the window.
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
    this.now = options.now ?? Date.now;
  }

  // — identity —
  login = (email: string, password: string, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof TokenResponse>>('POST', '/login', { ...call, form: { username: email, password }, anonymous: true });
  exchangeApiKey = (apiKey: string, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof TokenResponse>>('POST', '/login/api_key', { ...call, json: { api_key: apiKey }, anonymous: true });
  /** A new access token; a client that signs in (`login` credentials) goes on with it. */
  refreshToken = async (call: CallOptions = {}) => {
    // Noted before the call, whose own renewal may come first: the token is counted a little older than it is, never younger.
    const sentAt = this.nowSeconds();
    const answer = await this.request<t.TypeOf<typeof TokenResponse>>('POST', '/v2/refresh_token', call);
    if ('login' in this.credentials) this.adopt(answer.access_token, { sentAt });
    return answer;
  };
  /**
   * Begins a person's session (`session` credentials) with the password flow: the token is held, the
   * refresh cookie kept by the browser (outside one, by the client). Errors are the sign-in's (401 for a
   * wrong password, 429 past the sign-in limit).
   */
  startSession = async (email: string, password: string, call: CallOptions = {}): Promise<void> => {
    if (!('session' in this.credentials)) throw new TypeError('startSession is for a client made with session credentials');
    const options: RequestOptions = { ...call, form: { username: email, password }, anonymous: true };
    const signedIn = await this.send('POST', `${this.baseUrl}/login`, options, { headers: {} });
    const answer = answerOf<t.TypeOf<typeof TokenResponse>>(signedIn, options);
    this.refreshCookie = refreshCookieOf(signedIn) ?? undefined;
    this.adopt(answer.access_token, signedIn);
  };
  /**
   * Ends the session (POST /logout, with the token held and the refresh cookie): the server revokes it
   * and expires the cookie. The client holds nothing afterwards, whatever the answer.
   */
  endSession = (call: CallOptions = {}) => {
    const token = this.token;
    const cookie = this.refreshCookie;
    this.token = undefined;
    this.refreshCookie = undefined;
    this.backoff = undefined;
    const headers: Record<string, string> = {
      ...(token !== undefined ? { authorization: `Bearer ${token.value}` } : {}),
      ...(cookie !== undefined ? { cookie: `${REFRESH_COOKIE}=${cookie.value}` } : {}),
    };
    return this.request<{ message: string }>('POST', '/logout', { ...call, headers, anonymous: true });
  };
  currentUser = (call: CallOptions = {}) => this.request<t.TypeOf<typeof UserResponse>>('GET', '/v2/current_user', call);
  createUser = (user: { email: string; password: string; role?: UserRoleName }, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof UserResponse>>('POST', '/v2/users', { ...call, json: user });
  createApiKey = (key: { description: string; expires_at?: string | null }, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ApiKeyCreateResponse>>('POST', '/v2/users/api_keys', { ...call, json: key });
  listApiKeys = (call: CallOptions = {}) => this.request<Array<t.TypeOf<typeof ApiKeyResponse>>>('GET', '/v2/users/api_keys', call);
  revokeApiKey = (id: string, call: CallOptions = {}) => this.request<{ message: string }>('DELETE', `/v2/users/api_keys/${enc(id)}`, call);

  // — projects and runs —
  createProject = (project: { name: string; type?: ProjectTypeName; create_example_templates?: boolean }, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ProjectResponse>>('POST', '/v2/projects', { ...call, json: project });
  listProjects = (filter: { project_name?: string; type?: ProjectTypeName } = {}, call: CallOptions = {}) =>
    this.request<Array<t.TypeOf<typeof ProjectResponse>>>('GET', '/v2/projects', { ...call, query: filter });
  getProject = (id: string, call: CallOptions = {}) => this.request<t.TypeOf<typeof ProjectResponse>>('GET', `/v2/projects/${enc(id)}`, call);
  /** Deletes the project with its runs and everything under them. */
  deleteProject = (id: string, call: CallOptions = {}) => this.request<{ message: string }>('DELETE', `/v2/projects/${enc(id)}`, call);
  createLogStream = (projectId: string, name: string, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof RunResponse>>('POST', `/v2/projects/${enc(projectId)}/log_streams`, { ...call, json: { name } });
  listLogStreams = (projectId: string, filter: { name?: string } = {}, call: CallOptions = {}) =>
    this.request<Array<t.TypeOf<typeof RunResponse>>>('GET', `/v2/projects/${enc(projectId)}/log_streams`, { ...call, query: filter });
  /** The caller's projects, of one type if asked (the SDKs' list of projects). */
  listAllProjects = (filter: { type?: ProjectTypeName } = {}, call: CallOptions = {}) =>
    this.request<Array<t.TypeOf<typeof ProjectResponse>>>('GET', '/v2/projects/all', { ...call, query: filter });
  /** An experiment; `task_type` (the origin's TaskType number) is 16 unless given. */
  createExperiment = (projectId: string, name: string, call: CallOptions & { task_type?: number } = {}) => {
    const { task_type, ...rest } = call;
    return this.request<t.TypeOf<typeof ExperimentResponse>>('POST', `/v2/projects/${enc(projectId)}/experiments`, {
      ...rest,
      json: task_type === undefined ? { name } : { name, task_type },
    });
  };
  listExperiments = (projectId: string, filter: { name?: string } = {}, call: CallOptions = {}) =>
    this.request<Array<t.TypeOf<typeof ExperimentResponse>>>('GET', `/v2/projects/${enc(projectId)}/experiments`, { ...call, query: filter });

  // — the spec's operations —
  upsertInsights = (
    projectId: string,
    runId: string,
    body?: { insights?: { logstream?: { enabled?: boolean; start_time?: string | null } | null } | null },
    call: CallOptions = {},
  ) =>
    this.request<t.TypeOf<typeof RunInsightsResponse>>(
      'PATCH',
      `/v2/projects/${enc(projectId)}/runs/${enc(runId)}/insights-settings`,
      body === undefined ? call : { ...call, json: body },
    );
  getInsights = (projectId: string, runId: string, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof RunInsightsResponse>>('GET', `/v2/projects/${enc(projectId)}/runs/${enc(runId)}/insights-settings`, call);
  upsertGatewayIntegration = (body: { token: string; endpoint: string; use_case: string }, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof IntegrationRecord>>('PUT', '/v2/integrations/gateway', { ...call, json: body });
  /** The caller's gateway integration as the PUT answers it (never its token); a 404 TracelightError when none is set. */
  getGatewayIntegration = (call: CallOptions = {}) => this.request<t.TypeOf<typeof IntegrationRecord>>('GET', '/v2/integrations/gateway', call);
  availableColumns = (projectId: string, run: RunKind, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof SpansAvailableColumnsResponse>>('POST', `/v2/projects/${enc(projectId)}/spans/available_columns`, { ...call, json: run });
  listScorerVersions = (scorerId: string, page: { starting_token?: number; limit?: number } = {}, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ListScorerVersionsResponse>>('GET', `/v2/scorers/${enc(scorerId)}/versions`, { ...call, query: page });

  // — scorers —
  createScorer = (scorer: { name: string; scorer_type: string } & Record<string, unknown>, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ScorerResponse>>('POST', '/v2/scorers', { ...call, json: scorer });
  listScorers = (call: CallOptions = {}) => this.request<Array<t.TypeOf<typeof ScorerResponse>>>('GET', '/v2/scorers', call);
  /** A page of the caller's scorers that pass every filter (the SDKs' list of scorers). */
  searchScorers = (
    body: { filters?: Array<Sendable<ScorerFilterWire>>; sort?: { name: 'name'; ascending?: boolean } | null } = {},
    page: { starting_token?: number; limit?: number } = {},
    call: CallOptions = {},
  ) => this.request<t.TypeOf<typeof ListScorersResponse>>('POST', '/v2/scorers/list', { ...call, query: page, json: body });
  getScorer = (id: string, call: CallOptions = {}) => this.request<t.TypeOf<typeof ScorerResponse>>('GET', `/v2/scorers/${enc(id)}`, call);
  createLlmVersion = (id: string, version: Record<string, unknown>, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ScorerVersion>>('POST', `/v2/scorers/${enc(id)}/version/llm`, { ...call, json: version });
  createLunaVersion = (id: string, version: { lora_task_id: number; prompt: string } & Record<string, unknown>, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ScorerVersion>>('POST', `/v2/scorers/${enc(id)}/version/luna`, { ...call, json: version });
  createCodeVersion = (id: string, fileName: string, source: string, fields: CodeVersionFields = {}, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof ScorerVersion>>('POST', `/v2/scorers/${enc(id)}/version/code`, { ...call, body: codeForm(fileName, source, fields) });
  /** The source file of the scorer's latest code version, as text. */
  getScorerCode = (id: string, call: CallOptions = {}) =>
    this.request<string>('GET', `/v2/scorers/${enc(id)}/version/code`, { ...call, answer: 'text' });
  /** Each entry may carry a `sample_rate` (0 to 1): the share of the run's records the scorer scores. */
  setRunScorers = (projectId: string, runId: string, scorers: Array<{ scorer_id: string; version?: number | null; sample_rate?: number | null }>, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof RunScorerSettingsResponse>>('POST', `/v2/projects/${enc(projectId)}/runs/${enc(runId)}/scorer-settings`, {
      ...call,
      json: { scorers },
    });
  getRunScorers = (projectId: string, runId: string, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof RunScorerSettingsResponse>>('GET', `/v2/projects/${enc(projectId)}/runs/${enc(runId)}/scorer-settings`, call);

  // — evaluation —
  /** Queues scoring of the run's stored records (202): every scorer of its settings unless `scorer_ids` says which. */
  recomputeMetrics = (
    projectId: string,
    runId: string,
    body: { scorer_ids?: string[]; created_after?: string; created_before?: string } = {},
    call: CallOptions = {},
  ) =>
    this.request<t.TypeOf<typeof RecomputeMetricsResponse>>('POST', `/v2/projects/${enc(projectId)}/runs/${enc(runId)}/metrics/recompute`, { ...call, json: body });
  /** The run's scoring status: per scorer version, its jobs by state, the latest failure, the tokens used. */
  metricsStatus = (projectId: string, runId: string, call: CallOptions = {}) =>
    this.request<RunScoringStatus>('GET', `/v2/projects/${enc(projectId)}/runs/${enc(runId)}/metrics/status`, call);

  // — tracing —
  ingestTraces = (projectId: string, body: TracesIngest, call: SendOptions = {}) =>
    this.request<TracesIngested>('POST', `/v2/projects/${enc(projectId)}/traces`, { ...call, json: body });
  createSession = (projectId: string, body: RunKind & SessionCreate, call: CallOptions = {}) =>
    this.request<SessionResponse>('POST', `/v2/projects/${enc(projectId)}/sessions`, { ...call, json: body });
  searchSpans = (projectId: string, run: RunKind, search: RecordSearch = {}, call: CallOptions = {}) =>
    this.request<RecordPage>('POST', `/v2/projects/${enc(projectId)}/spans/search`, { ...call, json: { ...run, ...search } });
  searchTraces = (projectId: string, run: RunKind, search: RecordSearch = {}, call: CallOptions = {}) =>
    this.request<RecordPage>('POST', `/v2/projects/${enc(projectId)}/traces/search`, { ...call, json: { ...run, ...search } });
  searchSessions = (projectId: string, run: RunKind, search: RecordSearch = {}, call: CallOptions = {}) =>
    this.request<RecordPage>('POST', `/v2/projects/${enc(projectId)}/sessions/search`, { ...call, json: { ...run, ...search } });
  /** Immediate mode: spans under a trace (neither the trace nor the parent need be stored yet). */
  appendSpans = (projectId: string, run: RunKind, body: SpansAppend, call: SendOptions = {}) =>
    this.request<t.TypeOf<typeof LogSpansIngestResponse>>('POST', `/v2/projects/${enc(projectId)}/spans`, { ...call, json: { ...run, ...body } });
  /** Immediate mode: changes a stored trace (what is sent overwrites, tags are added). */
  updateTrace = (projectId: string, run: RunKind, traceId: string, changes: TraceUpdate, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof LogTraceUpdateResponse>>('PATCH', `/v2/projects/${enc(projectId)}/traces/${enc(traceId)}`, { ...call, json: { ...run, ...changes, trace_id: traceId } });
  /** Immediate mode: changes a stored span. */
  updateSpan = (projectId: string, run: RunKind, spanId: string, changes: SpanUpdate, call: CallOptions = {}) =>
    this.request<t.TypeOf<typeof LogSpanUpdateResponse>>('PATCH', `/v2/projects/${enc(projectId)}/spans/${enc(spanId)}`, { ...call, json: { ...run, ...changes, span_id: spanId } });
  /** A run's records as the export's text: JSON lines (one record each), or CSV. */
  exportRecords = (projectId: string, run: RunKind, body: RecordsExport, call: CallOptions = {}) =>
    this.request<string>('POST', `/v2/projects/${enc(projectId)}/export_records`, { ...call, json: { ...run, ...body }, answer: 'text' });

  // — OpenTelemetry —
  /** An OTLP/HTTP trace export, stored whole or not at all. Errors are TracelightErrors whose `detail` is the Status's message. */
  exportOtlpTraces = (to: OtlpDestination, body: OtlpTraceExport, call: SendOptions = {}) =>
    this.request<OtlpExportAnswer>('POST', to.path ?? '/v1/traces', {
      ...call,
      ...(ArrayBuffer.isView(body) ? { protobuf: body } : { json: body }),
      headers: { project: to.project, logstream: to.logstream },
      answer: 'otlp',
    });

  // — system —
  healthcheck = (call: CallOptions = {}) => this.request<t.TypeOf<typeof HealthResponse>>('GET', '/healthcheck', { ...call, anonymous: true });
  /** Readiness: resolves while the database answers; a TracelightError with status 503 when it does not. */
  readyz = (call: CallOptions = {}) => this.request<t.TypeOf<typeof ReadyResponse>>('GET', '/readyz', { ...call, anonymous: true });

  /**
   * One request. A login token is renewed first when close to expiry; on a 401 the request is sent
   * once more, after signing in again if the refused token is still the one held.
   */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const url = `${this.baseUrl}${path}${queryString(options.query)}`;
    const sent = await this.send(method, url, options, await this.authorization(options));
    const c = this.credentials;
    if (sent.res.status !== 401 || sent.token === undefined || !('login' in c || 'session' in c)) return answerOf<T>(sent, options);
    const renewed = 'login' in c ? await this.afterRefusal(c.login, sent.token, options.signal) : await this.afterSessionRefusal(sent.token, options.signal);
    return answerOf<T>(await this.send(method, url, options, renewed), options);
  }

  private async send(method: string, url: string, options: RequestOptions, auth: Authorization): Promise<Exchanged> {
    const headers: Record<string, string> = { ...options.headers, ...auth.headers };
    let body: RequestInit['body'];
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.protobuf) {
      headers['content-type'] = 'application/x-protobuf';
      // The DOM types take views of an ArrayBuffer only, where a Uint8Array's (a Buffer's) type allows a SharedArrayBuffer too.
      body = options.protobuf as Uint8Array<ArrayBuffer>;
    } else if (options.form) body = new URLSearchParams(options.form);
    else if (options.body) body = options.body;
    if (options.gzip === true && (typeof body === 'string' || body instanceof Uint8Array)) {
      headers['content-encoding'] = 'gzip';
      body = await gzipped(body);
    }
    const answered = await this.exchange(url, { method, headers, ...(body !== undefined ? { body } : {}) }, options.signal);
    return { ...answered, token: auth.token };
  }

  /**
   * One HTTP exchange, response body included, bounded by the client's timeout and the caller's
   * signal. Whatever keeps it from an answer becomes a TracelightError with status 0.
   */
  private async exchange(url: string, init: RequestInit, signal: AbortSignal | undefined): Promise<Answered> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const sentAt = this.nowSeconds();
    try {
      const res = await this.fetchImpl(url, { ...init, signal: signal ? AbortSignal.any([timeout, signal]) : timeout });
      const serverDate = dateOf(res);
      const stamps = { sentAt, ...(serverDate !== undefined ? { serverDate } : {}) };
      if (/^application\/x-protobuf\b/i.test(res.headers.get('content-type') ?? '')) {
        const bytes = new Uint8Array(await res.arrayBuffer());
        return { res, text: '', bytes, ...stamps, receivedAt: this.nowSeconds() };
      }
      const text = await res.text();
      return { res, text, ...stamps, receivedAt: this.nowSeconds() };
    } catch (error) {
      if (signal?.aborted) throw abortedError(signal);
      if (timeout.aborted) throw new TracelightError(0, `timed out after ${this.timeoutMs} ms`, { cause: error });
      throw new TracelightError(0, `network error: ${causeOf(error)}`, { cause: error });
    }
  }

  private async authorization(options: RequestOptions): Promise<Authorization> {
    const c = this.credentials;
    if (options.anonymous) return { headers: {} };
    if ('apiKey' in c) return { headers: { [c.header ?? 'Service-API-Key']: c.apiKey } };
    if ('bearer' in c) return { headers: { authorization: `Bearer ${c.bearer}` } };
    if ('basic' in c) return { headers: { authorization: `Basic ${base64OfUtf8(`${c.basic.email}:${c.basic.password}`)}` } };
    if ('session' in c) return bearer(await this.freshToken(() => this.renewSession(), options.signal));
    return bearer(await this.freshToken(() => this.renew(c.login), options.signal));
  }

  private async afterRefusal(login: Login, refused: string, signal: AbortSignal | undefined): Promise<Authorization> {
    // A late 401 for a token already replaced says nothing of the current one: send again with that.
    if (this.token !== undefined && this.token.value !== refused) return bearer(await this.freshToken(() => this.renew(login), signal));
    const failedSignIn = this.heldFailedSignIn();
    if (failedSignIn) throw failedSignIn.error;
    return bearer(await this.shared(() => this.signIn(login), signal));
  }

  /**
   * The token to send. While the last renewal failed and its wait has not run out, no new one is
   * tried: a token that has not expired is sent as it is, and a failed sign-in's error is answered
   * again at once. An expired token is never sent: the wait after a failed refresh does not hold back
   * the sign-in that follows its expiry.
   */
  private freshToken(renew: () => Promise<string>, signal: AbortSignal | undefined): Promise<string> {
    const token = this.token;
    const now = this.nowSeconds();
    if (token && now < token.refreshAt) return Promise.resolve(token.value);
    if (this.backoff && now < this.backoff.retryAt) {
      if (token && now < token.expiresAt) return Promise.resolve(token.value);
      const failedSignIn = this.heldFailedSignIn();
      if (failedSignIn) return Promise.reject(failedSignIn.error);
    }
    return this.shared(renew, signal);
  }

  /**
   * A 401 to a session's token: a late one for a token already replaced is sent again with the current
   * one; for the token held, the refresh cookie decides (the session may have been revoked, the cookie
   * with it), and its refusal is the caller's answer.
   */
  private async afterSessionRefusal(refused: string, signal: AbortSignal | undefined): Promise<Authorization> {
    if (this.token !== undefined && this.token.value !== refused) return bearer(await this.freshToken(() => this.renewSession(), signal));
    return bearer(await this.shared(() => this.sessionFromCookie(), signal));
  }

  /**
   * A session's token renewed: refreshed while it is valid (a refresh that gets no answer keeps it, as
   * for `login`), with the refresh cookie once it has expired, none is held (a page reloaded), or the
   * refresh was refused.
   */
  private async renewSession(): Promise<string> {
    const current = this.token;
    if (current !== undefined && this.nowSeconds() < current.expiresAt) {
      const refreshed = await this.refreshed(bearer(current.value).headers);
      if (typeof refreshed === 'string') return refreshed;
      if ('retryAfter' in refreshed) {
        this.failed(undefined, refreshed.retryAfter);
        return current.value;
      }
    }
    return this.sessionFromCookie();
  }

  /**
   * The session renewed with its refresh cookie: the one held outside a browser, or, with none held,
   * whatever cookie the browser sends of itself. Refused, the session is over: nothing is held any more
   * and the refusal, whose detail says why, is thrown.
   */
  private async sessionFromCookie(): Promise<string> {
    const cookie = this.refreshCookie;
    const refreshed = await this.refreshed(cookie !== undefined && this.nowSeconds() < cookie.expiresAt ? { cookie: `${REFRESH_COOKIE}=${cookie.value}` } : {});
    if (typeof refreshed === 'string') return refreshed;
    if ('refused' in refreshed) {
      this.token = undefined;
      this.refreshCookie = undefined;
      throw refreshed.refused;
    }
    this.failed(undefined, refreshed.retryAfter);
    throw refreshed.error;
  }

  /** The last sign-in's failure, while no new sign-in is to be tried yet. */
  private heldFailedSignIn(): { readonly error: unknown } | undefined {
    const b = this.backoff;
    return b && this.nowSeconds() < b.retryAt ? b.failedSignIn : undefined;
  }

  /** Notes a failed renewal: the next waits longer, and at least as long as the server's Retry-After. */
  private failed(failedSignIn?: { readonly error: unknown }, retryAfter?: number): void {
    const failures = (this.backoff?.failures ?? 0) + 1;
    const retryAt = this.nowSeconds() + Math.max(retryDelaySeconds(failures), Math.min(retryAfter ?? 0, RETRY_AFTER_MAX_SECONDS));
    this.backoff = failedSignIn ? { failures, retryAt, failedSignIn } : { failures, retryAt };
  }

  /**
   * One sign-in or refresh at a time, however many requests wait for it. It is bounded by the
   * client's timeout only: a caller's signal stops that caller's wait, not the others'.
   */
  private shared(renewal: () => Promise<string>, signal: AbortSignal | undefined): Promise<string> {
    this.renewing ??= renewal().finally(() => {
      this.renewing = undefined;
    });
    return abortable(this.renewing, signal);
  }

  /**
   * Refreshes a token that has not expired; a refresh refused (4xx) means signing in again. A refresh
   * that gets no answer, a 5xx or a 429 says nothing against the token held, so it is kept while it
   * lasts (a request after the backoff's wait tries again); once it has expired, the refresh cookie is
   * what is left, then signing in again.
   */
  private async renew(login: Login): Promise<string> {
    const current = this.token;
    if (current === undefined || this.nowSeconds() >= current.expiresAt) return this.renewExpired(login);
    const refreshed = await this.refreshed(bearer(current.value).headers);
    if (typeof refreshed === 'string') return refreshed;
    if ('retryAfter' in refreshed) {
      this.failed(undefined, refreshed.retryAfter);
      return current.value;
    }
    return this.signIn(login);
  }

  /**
   * No token, or an expired one: the refresh cookie, which outlives the access token, renews the
   * session; signing in again is for when there is none or it fails, whichever way. (A 401 for a token
   * that has not expired goes straight to signing in: its session is refused, and the cookie is of it.)
   */
  private async renewExpired(login: Login): Promise<string> {
    const cookie = this.refreshCookie;
    if (cookie !== undefined && this.nowSeconds() < cookie.expiresAt) {
      const refreshed = await this.refreshed({ cookie: `${REFRESH_COOKIE}=${cookie.value}` });
      if (typeof refreshed === 'string') return refreshed;
      if ('refused' in refreshed) this.refreshCookie = undefined;
    }
    return this.signIn(login);
  }

  /** POST /v2/refresh_token with a bearer token or the refresh cookie: the new token taken, with the cookie it sets. */
  private async refreshed(headers: Record<string, string>): Promise<string | Refused | Unavailable> {
    try {
      const answered = await this.exchange(`${this.baseUrl}/v2/refresh_token`, { method: 'POST', headers }, undefined);
      const { res, text } = answered;
      if (res.ok) {
        const token = (safeJson(text) as Partial<t.TypeOf<typeof TokenResponse>> | undefined)?.access_token;
        if (typeof token !== 'string') return { retryAfter: undefined, error: new TracelightError(res.status, 'the refresh answered no access token') };
        // A cookie refresh sets a new cookie; a bearer refresh sets none, and the one held stays good.
        const cookie = refreshCookieOf(answered);
        if (cookie !== undefined) this.refreshCookie = cookie ?? undefined;
        return this.adopt(token, answered);
      }
      const error = errorOf(answered, {});
      if (res.status >= 500 || res.status === 429) return { retryAfter: error.retryAfter, error };
      return { refused: error };
    } catch (error) {
      if (error instanceof TracelightError) return { retryAfter: undefined, error };
      throw error;
    }
  }

  /**
   * A failed sign-in is answered to the callers waiting for it, and to those that come before the
   * backoff's wait is over: a burst of calls after a failure does not each ask the server again,
   * whether it was unavailable or refused the password (asking again changes neither soon, and failed
   * sign-ins count against the server's limit for the client's address).
   */
  private async signIn(login: Login): Promise<string> {
    let signedIn: Exchanged;
    let answer: t.TypeOf<typeof TokenResponse>;
    try {
      const [path, options] = signInRequest(login);
      signedIn = await this.send('POST', `${this.baseUrl}${path}`, options, { headers: {} });
      answer = answerOf(signedIn, options);
    } catch (error) {
      this.failed({ error }, error instanceof TracelightError ? error.retryAfter : undefined);
      throw error;
    }
    // The cookie of an earlier session is dropped with it, even when this answer sets none.
    this.refreshCookie = refreshCookieOf(signedIn) ?? undefined;
    return this.adopt(answer.access_token, signedIn);
  }

  /** Takes a new token, timed from when the request that got it was sent; the renewals failed before it no longer count. */
  private adopt(token: string, sent: Sent): string {
    this.token = held(token, sent);
    this.backoff = undefined;
    return token;
  }

  private nowSeconds(): number {
    return this.now() / 1000;
  }
}

interface Authorization {
  readonly headers: Record<string, string>;
  /** The login token sent, to tell on a 401 whether it is still the one held. */
  readonly token?: string;
}

/** The sign-in of `login` credentials: the password flow, or an API key exchanged for a token. */
const signInRequest = (login: Login): [path: string, options: RequestOptions] =>
  'apiKey' in login
    ? ['/login/api_key', { json: { api_key: login.apiKey }, anonymous: true }]
    : ['/login', { form: { username: login.email, password: login.password }, anonymous: true }];

const REFRESH_COOKIE = 'refresh_token';

/**
 * The refresh cookie an answer sets: null when it removes it (an empty value, or an expiry passed),
 * undefined when it says nothing of it. Max-Age wins over Expires, as RFC 6265 has it. Both are taken on
 * the client's clock: Max-Age from when the request was sent; an Expires date (the server's clock) by its
 * distance from the answer's Date, less the second a whole-second Date may hide, and as it stands only
 * when there is no Date.
 */
const refreshCookieOf = ({ res, sentAt, serverDate, receivedAt }: Answered): HeldCookie | null | undefined => {
  for (const line of res.headers.getSetCookie?.() ?? []) {
    const [pair = '', ...attributes] = line.split(';');
    const eq = pair.indexOf('=');
    if (eq < 0 || pair.slice(0, eq).trim() !== REFRESH_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    let expires: number | undefined;
    let maxAge: number | undefined;
    for (const attribute of attributes) {
      const [name = '', ...rest] = attribute.split('=');
      const text = rest.join('=').trim();
      if (/^\s*max-age\s*$/i.test(name) && /^-?\d+$/.test(text)) maxAge = Number(text);
      else if (/^\s*expires\s*$/i.test(name) && !Number.isNaN(Date.parse(text))) expires = Date.parse(text) / 1000;
    }
    const expiresAt =
      maxAge !== undefined
        ? sentAt + maxAge
        : expires === undefined
          ? Infinity
          : serverDate === undefined
            ? expires
            : sentAt + (expires - serverDate) - WHOLE_SECOND;
    return value === '' || expiresAt <= receivedAt ? null : { value, expiresAt };
  }
  return undefined;
};

const bearer = (token: string): Authorization => ({ headers: { authorization: `Bearer ${token}` }, token });

/** The error an answer that is not a success makes: its detail (an OTLP Status's message), with Retry-After on a 429 or 503. */
const errorOf = (answered: Answered, options: RequestOptions): TracelightError => {
  const { res, text, bytes } = answered;
  const parsed: unknown = text ? safeJson(text) : undefined;
  const detail =
    options.answer === 'otlp'
      ? (bytes ? statusMessageOf(bytes) : (parsed as { message?: string } | undefined)?.message) ?? text
      : (parsed as { detail?: string | ValidationError[] } | undefined)?.detail ?? text;
  const retryAfter = res.status === 429 || res.status === 503 ? retryAfterOf(answered) : undefined;
  return new TracelightError(res.status, detail, retryAfter === undefined ? {} : { retryAfter });
};

const answerOf = <T>(answered: Exchanged, options: RequestOptions): T => {
  const { res, text, bytes } = answered;
  if (!res.ok) throw errorOf(answered, options);
  const parsed: unknown = text ? safeJson(text) : undefined;
  // An empty protobuf ExportTraceServiceResponse is the empty object of its JSON form.
  if (options.answer === 'otlp' && bytes) return {} as T;
  return (options.answer === 'text' ? text : parsed) as T;
};

/**
 * The `message` (field 2) of a protobuf google.rpc.Status, OTLP/HTTP's error body for a protobuf
 * export; undefined when the bytes are not one.
 */
const statusMessageOf = (bytes: Uint8Array): string | undefined => {
  let at = 0;
  const varint = (): number => {
    let value = 0;
    for (let shift = 0; at < bytes.length && shift < 64; shift += 7) {
      const byte = bytes[at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) return value;
    }
    return NaN;
  };
  while (at < bytes.length) {
    const key = varint();
    const wireType = key % 8;
    if (wireType === 0) varint();
    else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (!(length <= bytes.length - at)) return undefined;
      if (Math.floor(key / 8) === 2) return new TextDecoder().decode(bytes.subarray(at, at + length));
      at += length;
    } else return undefined;
  }
  return undefined;
};

/**
 * Retry-After in seconds: given as seconds, or as an HTTP date, which is the server's clock: its distance
 * from the answer's Date, or from the client's clock when there is none.
 */
const retryAfterOf = ({ res, serverDate, receivedAt }: Answered): number | undefined => {
  const header = res.headers.get('retry-after');
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil(at / 1000 - (serverDate ?? receivedAt)));
};

/** `body` gzip-compressed, by the web's CompressionStream (Node 18 and later, browsers): no Node built-in, so the client runs in either. */
const gzipped = async (body: string | Uint8Array): Promise<Uint8Array<ArrayBuffer>> => {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
};

const queryString = (query: RequestOptions['query']): string => {
  const entries = Object.entries(query ?? {}).flatMap(([k, v]): Array<[string, string]> => (v === undefined ? [] : [[k, String(v)]]));
  return entries.length ? `?${new URLSearchParams(entries)}` : '';
};

const codeForm = (fileName: string, source: string, fields: CodeVersionFields): FormData => {
  const form = new FormData();
  form.append('file', new Blob([source]), fileName);
  if (fields.validation_result !== undefined) form.append('validation_result', fields.validation_result);
  // The form field takes a JSON array (or comma-separated names): JSON keeps a name with a comma whole.
  if (fields.scoreable_node_types !== undefined) form.append('scoreable_node_types', JSON.stringify(fields.scoreable_node_types));
  return form;
};

const abortedError = (signal: AbortSignal) => new TracelightError(0, 'the call was aborted', { cause: signal.reason });

/** `work`, or a TracelightError as soon as `signal` aborts; `work` itself goes on for whoever else waits. */
const abortable = <T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> => {
  if (signal === undefined) return work;
  if (signal.aborted) return Promise.reject(abortedError(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
};

/**
 * fetch reports a refused connection as "fetch failed", with the reason in its cause. Read by shape,
 * not `instanceof`: the error can come from another realm (a test runner's sandbox, say).
 */
const causeOf = (error: unknown): string => {
  const field = (value: unknown, key: string): unknown => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined);
  const inner = field(error, 'cause') ?? error;
  const message = field(inner, 'message');
  // An AggregateError (every address of a host refused) has an empty message but a code.
  return typeof message === 'string' && message !== '' ? message : String(field(inner, 'code') ?? inner);
};

const enc = encodeURIComponent;
const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};
