// Assembles the Koa application: error shaping, body parsing, and every route group on one router,
// served under /v2 (the spec) and at the root (the origin's SDKs call unversioned paths).
import Router from '@koa/router';
import { IdentityUseCases } from '@tracelight/use-cases';
import { inject, injectable, multiInject, optional } from 'inversify';
import Koa, { type Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import type { IncomingMessage } from 'node:http';
import { createHash, timingSafeEqual } from 'node:crypto';
import { authenticate } from './auth/authenticate.middleware';
import { errorMiddleware } from './errors/error.middleware';
import { accessLog } from './shared/access-log.middleware';
import { batchResponses } from './shared/batch-responses.middleware';
import { HttpMetrics } from './shared/metrics';
import { limitByAddress, limitSignInFailures, RateLimiter } from './shared/rate-limit';
import { openApiDocument } from './openapi/openapi.document';
import { otlpAnswers } from './otlp/otlp-answers.middleware';
import { DOCS_HTML, DOCS_INIT, docsAsset } from './openapi/docs.page';
import type { AppContext } from './shared/context';
import { HttpLogger, HttpOptions } from './shared/logger';
import { MultipartError, MULTIPART_ENVELOPE_BYTES, parseMultipart } from './shared/multipart';
import { BodyBudget, type BodyRoom, UNBOUNDED_ROOM } from './shared/body-budget';
import { RawBodyError, readRawBody } from './shared/raw-body';
import { API_KEY_HEADERS, basicNameOf, presentedApiKeyPair } from './auth/presented-credentials';
import { corsFor } from './shared/cors';
import { believeForwardedProto } from './shared/forwarded-proto';
import { RouteOffload } from './shared/offload';
import { headerText } from './shared/header-text';
import { parseJsonBody } from './shared/json-body';
import { PresentedBodies } from './shared/presented-body';
import { queryOf } from './shared/query-string';
import { bodyFailure, sendError } from './shared/respond';
import { type BodyKind, type Route, RouteGroup } from './shared/route';
import { routeKey, runRoute } from './shared/route-runner';
import { consoleMiddleware, loadConsoleAssets } from './console/console-assets';

const koaPath = (specPath: string): string => specPath.replace(/\{(\w+)\}/g, ':$1');

/** path-to-regexp's optional group: `/v2/projects` (the spec) and `/projects` (the origin's SDKs) match one route. */
const OPTIONAL_V2 = '{/v2}';
const V2_PREFIXED = /^\/v2(?:\/|$)/i;

/**
 * The first middleware of every route: names the matched route for metrics as it was named when the
 * table was mounted twice, `/v2/projects/:project_id` or `/projects/:project_id`, never `{/v2}…`.
 */
const routeLabel = (path: string): Middleware => {
  const prefixed = `/v2${path}`;
  return (ctx, next) => {
    (ctx as { _matchedRoute?: string })._matchedRoute = V2_PREFIXED.test(ctx.path) ? prefixed : path;
    return next();
  };
};

/**
 * What refuses a caller of `/metrics`: nothing without a token; with one, the reason (a 401's detail)
 * unless the Authorization header is `Bearer <token>`. The two are compared as SHA-256 digests, in
 * constant time: neither the token's length nor how much of it a guess got right shows in the timing.
 */
const metricsCallerCheck = (token: string | undefined): ((authorization: string) => string | undefined) => {
  if (token === undefined) return () => undefined;
  const expected = createHash('sha256').update(token).digest();
  return (authorization) => {
    const m = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (m === null) return authorization === '' ? 'Not authenticated' : 'Could not validate credentials';
    return timingSafeEqual(createHash('sha256').update(m[1]!).digest(), expected) ? undefined : 'Could not validate credentials';
  };
};

/** Never handed to an offload worker: the caller is already resolved into a principal. */
const CREDENTIAL_HEADERS = new Set<string>([...API_KEY_HEADERS, 'authorization', 'cookie']);

/** A request with a body to read: chunked, or a Content-Length above 0. An empty body is no body. */
const carriesBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;

const isMultipart = (ctx: AppContext): boolean => ctx.is('multipart') === 'multipart';

/** JSON and form bodies are read as UTF-8 (JSON's only encoding between systems, RFC 8259); ASCII is a part of it. */
const UTF8 = new Set(['', 'utf-8', 'utf8', 'us-ascii']);

/** How a connection ends when its client hangs up, stops sending or is timed out by Node: the client's doing, not a fault. */
const CLIENT_GONE = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ERR_HTTP_REQUEST_TIMEOUT', 'ERR_STREAM_PREMATURE_CLOSE', 'ERR_STREAM_DESTROYED']);
const clientGone = (e: { code?: unknown; message?: unknown }): boolean =>
  (typeof e.code === 'string' && (CLIENT_GONE.has(e.code) || e.code.startsWith('HPE_'))) || e.message === 'Parse Error';

/**
 * What a body decoded on the request thread may take once decoded, per byte of it: JSON of tiny values
 * is many times its text (`[{},{},…]` takes 21 bytes of heap a byte, `[[],[],…]` 13, objects of unique
 * keys 8: test/bench/parsed-json.bench.mjs), and the text is held beside it. A body handed to an offload worker counts as its bytes: the
 * worker decodes one at a time, within its own heap.
 */
const DECODED_BODY_WEIGHT = 24;

/** The answer to a body that would take the server past TRACELIGHT_BODY_BUDGET: come back in a second. */
const BODIES_BUSY = {
  status: 503,
  body: { detail: 'Too many request bodies are being received at once; try again shortly' },
  headers: { 'Retry-After': '1' },
} as const;

@injectable()
export class HttpApp {
  /** Bytes of bodies being read, all requests together; none when no budget is set. */
  readonly bodies: BodyBudget | undefined;

  constructor(
    @multiInject(RouteGroup) private readonly groups: ReadonlyArray<RouteGroup>,
    @inject(IdentityUseCases) private readonly identity: IdentityUseCases,
    @inject(HttpOptions) private readonly options: HttpOptions,
    @inject(HttpLogger) private readonly logger: HttpLogger,
    @inject(HttpMetrics) private readonly metrics: HttpMetrics,
    @inject(RouteOffload) @optional() private readonly offload?: RouteOffload,
  ) {
    this.bodies = options.bodyBudgetBytes === undefined ? undefined : new BodyBudget(options.bodyBudgetBytes);
  }

  /** Every route, for the router and for documentation. */
  routes(): ReadonlyArray<Route> {
    return this.groups.flatMap((g) => g.routes());
  }

  /** Whether `build` found a built console to serve at /console (HttpOptions.consoleDir). */
  consoleServed = false;

  /** What the router actually mounted (method and spec-style path), once `build` ran: the OpenAPI test compares. */
  mounted: ReadonlyArray<{ readonly method: string; readonly path: string }> = [];

  private readonly presented = new PresentedBodies();

  build(): Koa {
    const proxies = this.options.trustedProxies ?? 0;
    const app = new Koa({ proxy: proxies > 0, maxIpsCount: proxies });
    believeForwardedProto(app, proxies);
    const metrics = this.metrics;
    // What Koa reports after (or beside) the middleware: a connection that broke while a request was read
    // or answered. Koa's own reporter prints a stack trace on stderr for each, outside the JSON log, and a
    // client that hangs up mid-request (or is timed out) is not the server's fault: one line says so.
    app.on('error', (e: unknown) => {
      const error = typeof e === 'object' && e !== null ? (e as { code?: unknown; message?: unknown; stack?: unknown }) : {};
      if (clientGone(error)) this.logger.info({ error: String(error.code ?? error.message) }, 'connection closed before its answer was written');
      else this.logger.error({ error: String(error.stack ?? e) }, 'connection error');
    });
    // Outermost: an answer is held once everything else (logging and metrics included) is done with it.
    app.use(batchResponses());
    app.use(accessLog(this.logger, metrics));
    app.use(errorMiddleware);
    // Inside the error middleware, so that refusals (401, 413, 429…) carry the CORS headers too and the
    // calling page can read why; a preflight is answered here, before credentials and limits.
    // Not /metrics: with `*`, any page a visitor on the server's network opens could read it through their browser.
    if (this.options.corsOrigins !== undefined) {
      const cors = corsFor(this.options.corsOrigins);
      app.use((ctx, next) => (ctx.path === '/metrics' ? next() : cors(ctx, next)));
    }
    // Bodies are read by the route that takes them (`handle`), as its body kind says: a route without
    // a body never reads one, and a JSON route reads nothing but JSON.
    // Each route is mounted once, under an optional `/v2`: half the layers for the router to match
    // against, compared with mounting the whole table twice.
    const api = new Router();
    // The API's routes are rate-limited (rate-limit.ts); probes, metrics and documentation are not.
    const limiter = this.options.rateLimitPerMinute > 0 ? new RateLimiter(this.options.rateLimitPerMinute) : undefined;
    if (limiter) metrics.watch('rate_limit_buckets', () => limiter.held());
    // Failed sign-ins have a budget of their own, far smaller: guessing passwords is limited to it.
    const failuresPerMinute = this.options.signInFailuresPerMinute ?? 0;
    const signInFailures = failuresPerMinute > 0 ? new RateLimiter(failuresPerMinute) : undefined;
    if (signInFailures) metrics.watch('sign_in_failure_buckets', () => signInFailures.held());
    const auth = authenticate(this.identity, limiter, signInFailures);
    const apiKeyPairAuth = authenticate(this.identity, limiter, signInFailures, presentedApiKeyPair);
    const byAddress = limiter ? [limitByAddress(limiter)] : [];
    const signIn = signInFailures ? [limitSignInFailures(signInFailures)] : [];
    for (const r of this.routes()) {
      const path = koaPath(r.path);
      const handler = (ctx: AppContext) => this.handle(r, ctx);
      const label = routeLabel(path);
      // Wraps everything the route answers, refusals of credentials and limits included.
      const errors = r.errors === 'otlp' ? [otlpAnswers] : [];
      if (r.auth === 'required') api[r.method](`${OPTIONAL_V2}${path}`, label, ...errors, r.basicApiKey ? apiKeyPairAuth : auth, handler);
      else api[r.method](`${OPTIONAL_V2}${path}`, label, ...errors, ...(r.unlimited ? [] : byAddress), ...(r.checksCredential === 'body' ? signIn : []), handler);
    }
    this.mounted = api.stack.flatMap((layer) =>
      layer.methods
        .filter((m) => m !== 'HEAD')
        .map((m) => ({ method: m.toLowerCase(), path: String(layer.path).slice(OPTIONAL_V2.length).replace(/:(\w+)/g, '{$1}') })),
    );
    const document = openApiDocument(this.routes(), '0.1.0');
    const root = new Router();
    root.get('/openapi.json', (ctx) => {
      ctx.body = document;
    });
    const metricsCaller = metricsCallerCheck(this.options.metricsToken);
    root.get('/metrics', async (ctx) => {
      const refusal = metricsCaller(ctx.get('authorization'));
      if (refusal !== undefined) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer realm="metrics"');
        ctx.body = { detail: refusal };
        return;
      }
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    });
    root.get('/docs', (ctx) => {
      ctx.type = 'text/html; charset=utf-8';
      // Not to be framed by another page (clickjacking the Try-it-out forms, which send credentials).
      ctx.set('Content-Security-Policy', "frame-ancestors 'none'");
      ctx.body = DOCS_HTML;
    });
    root.get('/docs/init.js', (ctx) => {
      ctx.type = 'application/javascript; charset=utf-8';
      ctx.body = DOCS_INIT;
    });
    root.get('/docs/:asset', async (ctx, next) => {
      const asset = docsAsset(ctx.params['asset'] ?? '');
      if (!asset) return next();
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.type = asset.type;
      ctx.body = asset.body;
      return undefined;
    });
    root.use(api.routes());
    // What no route answered: 404, or 405 (with Allow) for a path served under other methods, also
    // for a method the router does not know at all (it would say 501, a server error, to a client's).
    app.use(async (ctx, next) => {
      await next();
      if (ctx.body !== undefined && ctx.body !== null) return;
      if (ctx.status === 501) {
        const allowed = [...new Set(root.match(ctx.path, 'GET').path.flatMap((layer) => layer.methods))];
        ctx.status = allowed.length > 0 ? 405 : 404;
        ctx.remove('Allow');
        if (allowed.length > 0) ctx.set('Allow', allowed.join(', '));
      }
      // The status is set again before the body: Koa would otherwise take a body for a 200.
      if (ctx.status === 405) {
        ctx.status = 405;
        ctx.body = { detail: 'Method Not Allowed' };
      } else if (ctx.status === 404) {
        ctx.status = 404;
        ctx.body = { detail: 'Not Found' };
      }
    });
    // Read into memory once, here: the console's requests never reach the router, the API's never the disk.
    const consoleAssets = this.options.consoleDir === undefined ? undefined : loadConsoleAssets(this.options.consoleDir);
    this.consoleServed = consoleAssets !== undefined;
    app.use(consoleMiddleware(consoleAssets));
    app.use(root.routes());
    app.use(root.allowedMethods());
    return app;
  }

  /** koa-bodyparser for each limit in use, for form-encoded bodies (the OAuth2 password flow); JSON is read as bytes (parseJsonBody). */
  private readonly parsers = new Map<number, Middleware>();

  private parser(limitBytes: number): Middleware {
    let parser = this.parsers.get(limitBytes);
    if (parser === undefined) {
      parser = bodyParser({ enableTypes: ['form'], formLimit: String(limitBytes) });
      this.parsers.set(limitBytes, parser);
    }
    return parser;
  }

  /**
   * The most a JSON or form body of this route may be, inflated: its own bound, else TRACELIGHT_BODY_LIMIT
   * for a route whose large bodies an offload worker parses (trace batches), TRACELIGHT_API_BODY_LIMIT
   * for every other, whose bodies this thread parses.
   */
  private jsonLimit(r: Route): number {
    const own = r.bodyLimitBytes ?? (r.offload ? Number.POSITIVE_INFINITY : (this.options.apiBodyLimitBytes ?? Number.POSITIVE_INFINITY));
    return Math.min(own, this.options.bodyLimitBytes);
  }

  /** A form-encoded body parsed into `ctx.request.body`; undefined when there was none. */
  private async parsedForm(ctx: AppContext, limitBytes: number): Promise<unknown> {
    const parse = this.parser(limitBytes)(ctx, async () => undefined);
    // A compressed body is read through an inflater, which a client gone mid-body never ends: without
    // this, the parse would wait for ever, its request neither answered nor logged. (A plain one's
    // parser sees the request abort.)
    if (ctx.req.headers['content-encoding'] === undefined) await parse;
    else
      await Promise.race([
        parse,
        new Promise<never>((_, reject) =>
          ctx.req.once('close', () => {
            if (!ctx.req.complete) reject(Object.assign(new Error('The request was cut off before its body ended'), { status: 400, expose: true }));
          }),
        ),
      ]);
    const body: unknown = ctx.request.body;
    // An empty body is an absent body.
    return body === '' ? undefined : body;
  }

  /**
   * Reserves the body's room in the budget until its answer is done (the body, parsed or not, lives that
   * long), or undefined when the budget has none left. A body of known size reserves what `weighed` says of
   * its stated length; one of unknown size (compressed, or chunked) that this adapter reads itself (`growing`) starts
   * from its stated length, if any, and its room grows as it arrives (`rawBody`); any other (multipart,
   * a form) reserves the most it may be. A body stated over its limit reserves nothing: it is refused (413) unread.
   */
  private admitBody(r: Route, kind: BodyKind, ctx: AppContext, growing: boolean): BodyRoom | undefined {
    const budget = this.bodies;
    if (budget === undefined || kind === 'none' || !carriesBody(ctx.req)) return UNBOUNDED_ROOM;
    const limit =
      kind === 'multipart'
        ? this.options.uploadLimitBytes + MULTIPART_ENVELOPE_BYTES
        : kind === 'bytes' && !ctx.is('json')
          ? this.options.uploadLimitBytes * 16
          : this.jsonLimit(r);
    const stated = Number(ctx.req.headers['content-length']);
    if (growing) return this.reserveRoom(ctx, budget, this.weighed(r, Number.isFinite(stated) ? Math.min(stated, limit) : 0));
    // A multipart body is read as sent; a form's parser inflates a compressed one.
    const sized = Number.isFinite(stated) && (kind === 'multipart' || ctx.req.headers['content-encoding'] === undefined);
    const bytes = sized ? (stated > limit ? 0 : stated) : limit;
    return this.reserveRoom(ctx, budget, kind === 'multipart' ? bytes : this.weighed(r, bytes));
  }

  private reserveRoom(ctx: AppContext, budget: BodyBudget, bytes: number): BodyRoom | undefined {
    const room = budget.reserve(bytes);
    if (room) ctx.res.once('close', room.release);
    return room;
  }

  /**
   * Whether this adapter reads the body itself, not knowing its size until it has read it all, and grows
   * its room as it arrives: a compressed body or one of no stated length (chunked), unless multipart or
   * a form (their parsers reserve the most they may take).
   */
  private readsGrowing(kind: BodyKind, ctx: AppContext): boolean {
    if (kind === 'none' || kind === 'multipart') return false;
    const sized = ctx.req.headers['content-encoding'] === undefined && ctx.req.headers['content-length'] !== undefined;
    return !sized && (kind === 'bytes' || Boolean(ctx.is('json')));
  }

  /**
   * What a body of `bytes` takes while its request is handled: its bytes when an offload worker will
   * decode it, else DECODED_BODY_WEIGHT times them.
   */
  private weighed(r: Route, bytes: number): number {
    return this.offloadsAt(r, bytes) ? bytes : bytes * DECODED_BODY_WEIGHT;
  }

  /** The offload workers, when they take a body of `bytes` for this route: a heavy route's, of at least the offload size. */
  private offloadsAt(r: Route, bytes: number): RouteOffload | undefined {
    const offload = r.offload ? this.offload : undefined;
    return offload && bytes >= offload.minBytes ? offload : undefined;
  }

  private async handle(r: Route, ctx: AppContext): Promise<void> {
    const kind = r.bodyKind ?? (r.body ? 'json' : 'none');
    const growing = this.readsGrowing(kind, ctx);
    const room = this.admitBody(r, kind, ctx, growing);
    if (!room) return sendError(ctx, BODIES_BUSY);
    // A body known in size only once read has its room grow as it arrives.
    const grow = growing ? (bytes: number) => room.resize(this.weighed(r, bytes)) : undefined;
    let rawBody: unknown = {};
    /**
     * No body was sent, or an empty one: a route that requires one answers as FastAPI does (and takes
     * JSON `null` so too: runRoute).
     */
    let absent = true;
    if (kind === 'multipart') {
      if (!isMultipart(ctx)) {
        ctx.status = 415;
        ctx.body = { detail: 'Expected a multipart/form-data upload' };
        return;
      }
      try {
        const { fields, files } = await parseMultipart(ctx.req, this.options.uploadLimitBytes);
        rawBody = { ...fields, ...files };
      } catch (e) {
        if (!(e instanceof MultipartError)) throw e;
        return sendError(ctx, bodyFailure(e.status, e.message));
      }
    } else if (kind !== 'none' && carriesBody(ctx.req)) {
      const json = Boolean(ctx.is('json'));
      // Another charset would be read as UTF-8 all the same, its text silently mangled ("café" in Latin-1 stored as "caf\uFFFD").
      if ((json || ctx.is('urlencoded')) && !UTF8.has(ctx.request.charset.toLowerCase()))
        return sendError(ctx, bodyFailure(415, 'Expected a UTF-8 body (charset=utf-8)'));
      if (kind === 'bytes' && !json) {
        if (ctx.get('content-type') && !ctx.is('application/x-protobuf', 'application/octet-stream'))
          return sendError(ctx, bodyFailure(415, 'Expected application/x-protobuf or application/json'));
        const bytes = await this.rawBody(ctx, this.options.uploadLimitBytes * 16, grow);
        if (!bytes) return;
        // A large export is decoded, mapped and stored by an offload worker, as a large JSON ingest is.
        const offload = this.offloadsAt(r, bytes.length);
        if (offload) return this.handleOffloaded(r, ctx, offload, bytes, 'bytes');
        rawBody = bytes;
      } else {
        // Anything but JSON (or a form on the login routes) would be read as no body at all: refused.
        if (!json && !(kind === 'form' && ctx.is('urlencoded')))
          return sendError(ctx, bodyFailure(415, kind === 'form' ? 'Expected application/json or application/x-www-form-urlencoded' : 'Expected application/json'));
        // JSON is read as bytes here (a body that is not UTF-8 is refused, not decoded with U+FFFD in its
        // place). A large body for a heavy route is not parsed here: an offload worker parses it.
        if (json) {
          const text = await this.rawBody(ctx, this.jsonLimit(r), grow);
          if (!text) return;
          const worker = this.offloadsAt(r, text.length);
          if (worker) return this.handleOffloaded(r, ctx, worker, text, 'json');
          const parsed = parseJsonBody(text);
          if (!parsed.ok) return sendError(ctx, parsed.error);
          rawBody = parsed.value;
          absent = parsed.absent;
        } else {
          const parsed = await this.parsedForm(ctx, this.jsonLimit(r));
          absent = parsed === undefined;
          rawBody = parsed === undefined ? {} : parsed;
        }
      }
    }
    const outcome = await runRoute(r, {
      params: ctx.params,
      query: queryOf(ctx.querystring),
      body: rawBody,
      bodyAbsent: absent && (kind === 'json' || kind === 'form'),
      principal: ctx.state.principal,
      header: (name: string) => {
        const value = ctx.get(name);
        return value ? headerText(value) : undefined;
      },
      ...this.basicNameFor(r, ctx),
    });
    if (!outcome.ok) {
      sendError(ctx, outcome.error);
      return r.writeRefusal?.(ctx, outcome.error);
    }
    // No cache, shared or private, may keep a credential (RFC 6749 §5.1).
    if (r.answersSecret) ctx.set('Cache-Control', 'no-store');
    if (r.write) return r.write(ctx, outcome.result);
    ctx.status = outcome.status;
    const presented = this.presented.of(r, outcome.result);
    if ('other' in presented) {
      ctx.body = presented.other;
      return;
    }
    ctx.type = 'json'; // before the body: a Buffer body would otherwise be typed application/octet-stream
    ctx.body = presented.json;
  }

  /**
   * The body's bytes (inflated), or undefined when it was refused (too large, bad encoding, past the
   * budget as `admit` says while it arrives) and the refusal answered.
   */
  private async rawBody(ctx: AppContext, limitBytes: number, admit?: (bytes: number) => boolean): Promise<Buffer | undefined> {
    try {
      return await readRawBody(ctx.req, limitBytes, admit);
    } catch (e) {
      if (!(e instanceof RawBodyError)) throw e;
      sendError(ctx, e.status === 503 ? BODIES_BUSY : bodyFailure(e.status, e.message));
      return undefined;
    }
  }

  /** The name half of the request's Basic pair, for a route whose Basic pair is a name and an API key. */
  private basicNameFor(r: Route, ctx: AppContext): { basicName?: string } {
    const name = r.basicApiKey ? basicNameOf(ctx.get('authorization')) : undefined;
    return name === undefined ? {} : { basicName: name };
  }

  /** The body goes, unparsed, to an offload worker, which answers as this thread would have. */
  private async handleOffloaded(r: Route, ctx: AppContext, offload: RouteOffload, body: Buffer, bodyType: 'json' | 'bytes'): Promise<void> {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(ctx.headers))
      if (typeof value === 'string' && !CREDENTIAL_HEADERS.has(name)) headers[name] = value;
    // The route as tracelight_http_requests_total names it, so the two series join.
    this.metrics.offloaded.inc({ route: (ctx as { _matchedRoute?: string })._matchedRoute ?? r.path });
    const reply = await offload.run({
      route: routeKey(r),
      params: ctx.params,
      query: queryOf(ctx.querystring),
      body,
      bodyType,
      principal: ctx.state.principal,
      headers,
      ...this.basicNameFor(r, ctx),
    });
    ctx.status = reply.status;
    for (const [name, value] of Object.entries(reply.headers ?? {})) ctx.set(name, value);
    if (reply.reason !== undefined) ctx.state.failure = reply.reason;
    ctx.body = reply.body;
  }
}
