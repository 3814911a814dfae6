// Configuration from environment variables only, decoded at boot: a bad value stops the process with a report.
import { byteSize, type Env, type ScoringConfig, type StorageConfig, SCORING_VARIABLES, STORAGE_VARIABLES, loadScoringConfig, loadStorageConfig } from '@tracelight/config';
import { DEFAULT_PASSWORD_COST, isUsableSecretKey, parseSecretKey, passwordCostSetting, sameKeysProblem, SECRET_KEY_RULE } from '@tracelight/credentials';
import { isEmail, MIN_PASSWORD_LENGTH, normaliseEmail } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';

export type { DatabaseConfig } from '@tracelight/config';

/** The storage settings (shared with the admin CLI, decoded by the same code), then the server's own. */
export interface ServerConfig extends StorageConfig, ScoringConfig {
  readonly host: string;
  readonly port: number;
  readonly sqliteWriter: 'thread' | 'inline';
  /** With the writer thread: threads that run record searches (0: on the request thread). */
  readonly sqliteSearchThreads: number;
  readonly secretKey: string | undefined;
  /** TRACELIGHT_PREVIOUS_SECRET_KEY: the master key before a rotation, still accepted for what it made. */
  readonly previousSecretKey: string | undefined;
  readonly tokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  /** TRACELIGHT_REFRESH_REUSE_GRACE_MS: for how long a refresh token just spent is answered with its successor again. */
  readonly refreshReuseGraceMs: number;
  readonly passwordCacheTtlSeconds: number;
  /** TRACELIGHT_PASSWORD_COST: scrypt's cost for new password hashes, as log2 of N. */
  readonly passwordCost: number;
  readonly credentialCacheMs: number;
  readonly adminEmail: string | undefined;
  readonly adminPassword: string | undefined;
  /** TRACELIGHT_BODY_LIMIT in bytes. */
  readonly bodyLimitBytes: number;
  /** TRACELIGHT_API_BODY_LIMIT in bytes. */
  readonly apiBodyLimitBytes: number;
  /** TRACELIGHT_BODY_BUDGET: the most memory request bodies may take at once, all requests together (a parsed one counted 24 times over). */
  readonly bodyBudgetBytes: number;
  readonly uploadLimitBytes: number;
  readonly rateLimitPerMinute: number;
  readonly signInFailuresPerMinute: number;
  /** TRACELIGHT_METRICS_TOKEN: the bearer token `/metrics` asks for (undefined: it is open). */
  readonly metricsToken: string | undefined;
  /** TRACELIGHT_CORS_ORIGINS: the origins whose pages may call the API from a browser, `*` for any (undefined: none). */
  readonly corsOrigins: ReadonlyArray<string> | '*' | undefined;
  /** TRACELIGHT_TRUST_PROXY: how many reverse proxies stand in front (`true` is one; `false`, none). */
  readonly trustedProxies: number;
  readonly requestTimeoutMs: number;
  /** TRACELIGHT_MAX_CONNECTIONS; undefined: derived from the open-file limit when the server starts. */
  readonly maxConnections?: number;
  readonly maxRecordsPerRequest: number;
  /** A page of records or scorer versions ends early once what it holds reaches this many bytes. */
  readonly pageBytes: number;
  /** TRACELIGHT_SEARCH_TIMEOUT_MS: a record search still reading after this long is stopped (503). */
  readonly searchTimeoutMs: number;
  /** TRACELIGHT_SHUTDOWN_TIMEOUT_MS: a stop still waiting after this long exits at once, with status 1. */
  readonly shutdownTimeoutMs: number;
  /** TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS: once stopping, how long a request still waiting on its client is waited for. */
  readonly shutdownClientGraceMs: number;
  readonly offloadWorkers: number;
  readonly offloadMinBytes: number;
  /** TRACELIGHT_OFFLOAD_QUEUE_BYTES: the most bytes of bodies the offload workers may hold together. */
  readonly offloadQueueBytes: number;
  /** TRACELIGHT_RETENTION_DAYS; 0: records are kept for good. */
  readonly retentionDays: number;
  /** TRACELIGHT_LOG_BUFFER: the most bytes of log lines waiting to be written, for stdout and for stderr each. */
  readonly logBufferBytes: number;
}

/**
 * Every variable the server reads, its default and what it does, in Markdown: the configuration table of
 * docs/configuration.md is this list, row for row (a unit test holds them together), and
 * `node dist/main.js --help` prints it.
 */
export const CONFIG_VARIABLES: ReadonlyArray<readonly [name: string, defaultValue: string, description: string]> = [
  ['TRACELIGHT_HOST', '`127.0.0.1`', 'Interface to listen on.'],
  ['TRACELIGHT_PORT', '`8088`', 'Port to listen on (`0` picks a free one and logs it).'],
  ...STORAGE_VARIABLES,
  ['TRACELIGHT_SQLITE_WRITER', '`thread`', '`thread`: every write runs on one writer thread, committed in groups (docs/storage.md); `inline`: on the request thread, one transaction each.'],
  ['TRACELIGHT_SQLITE_SEARCH_THREADS', '`2`', 'With `thread`: how many threads run record searches (`spans/search`, `traces/search`, `sessions/search`), each on a read-only connection of its own, the least busy taking each search (0: on the request thread). A search reads rows until it has a page of matches, and one whose filters match little of a large run reads most of it (seconds for a million spans): on the request thread it held every other request, probes included, as long; here only the searches queued behind it on its thread.'],
  ['TRACELIGHT_SECRET_KEY', 'generated into `<data dir>/secret.key` (mode 0600)', 'Master key (≥ 32 bytes: 64 hex, 43+ base64, or a 32+ character passphrase). Token signing, API-key hashing and secret sealing each use a sub-key derived from it (HKDF). Give every server process sharing a database the same key.'],
  ['TRACELIGHT_PREVIOUS_SECRET_KEY', 'unset', 'For a rotation of the master key: the key `TRACELIGHT_SECRET_KEY` (or `secret.key`) replaces, in the same forms. What it made stays good (tokens until they expire; gateway tokens it sealed open, until the admin CLI\'s `reseal-secrets` seals them anew) and an API key hashed under it is found and hashed again under the new key at its first use; everything new is made with the new key. Unset it once the old tokens have expired, the gateway tokens are sealed anew and the API keys in use have been used since (a key never used meanwhile stops working then). See "Rotating the secret key" in docs/security.md.'],
  ['TRACELIGHT_TOKEN_TTL_SECONDS', '`3600`', 'Lifetime of access tokens (login, API-key exchange, refresh).'],
  ['TRACELIGHT_REFRESH_TOKEN_TTL_SECONDS', '`604800`', 'Lifetime of the HttpOnly `refresh_token` cookie set at sign-in, and the longest a session lives however often it is refreshed.'],
  ['TRACELIGHT_REFRESH_REUSE_GRACE_MS', '`5000`', 'Refresh cookies are single use: each refresh answers a new one. For this long after a cookie is spent, sending it again is answered with the same new cookie (two tabs refreshing together, a retry after a lost answer); after it, a spent cookie sent again is taken for a stolen one and revokes its session (0: always).'],
  ['TRACELIGHT_PASSWORD_CACHE_TTL_SECONDS', '`60`', 'How long a verified HTTP Basic password is remembered (0 disables).'],
  ['TRACELIGHT_PASSWORD_COST', '`15`', 'scrypt\'s cost for passwords, as log2 of its N (r = 8, p = 1), from 14 to 18: each check takes 2^cost × 1 KiB of memory (32 MiB at 15, 128 MiB at OWASP\'s 17, 256 MiB at 18) and twice the time for each step up, on one of the 4 threads of Node\'s pool. A password hashed at another cost still verifies, and is hashed again at this one at its owner\'s next successful sign-in or Basic request: give every process on a database the same cost. See "Credentials at rest" in docs/security.md.'],
  ['TRACELIGHT_CREDENTIAL_CACHE_MS', '`2000`', 'How long a resolved API key (with its user) or the user behind a token is remembered (0 disables). A key revoked through this server stops at once; one revoked by another process (the admin CLI, another server on the same database) works for at most this long. The same bound holds for a project and its runs, remembered once read: one deleted by another process (or read by an offload worker) may still be read here for this long, though nothing can be written under it any more.'],
  ['TRACELIGHT_ADMIN_EMAIL', '—', 'The first admin\'s email: the admin is created on start when no user exists. Set both or neither.'],
  ['TRACELIGHT_ADMIN_PASSWORD', '—', 'That admin\'s password (at least 8 characters); used only on that first start.'],
  ['TRACELIGHT_BODY_LIMIT', '`10mb`', 'Largest JSON or form body of trace ingestion (JSON and OTLP/JSON); larger gets 413. Sized for trace batches: a 1,000-span flush of ~1 KB spans is ~1.3 MB. At least `1kb`: it bounds every body, a sign-in\'s too (there is no "no limit").'],
  ['TRACELIGHT_API_BODY_LIMIT', '`1mb`', 'Largest JSON body of every other route (projects, runs, scorers and their versions, searches, settings, integrations; at least `1kb`, and set, at most `TRACELIGHT_BODY_LIMIT`, which caps the default); larger gets 413. These bodies are parsed on the request thread, which answers nothing else meanwhile, and megabytes of JSON made of tiny values take it far longer to parse than their size suggests. The sign-in routes take 16 KB.'],
  ['TRACELIGHT_BODY_BUDGET', '`512mb`', 'The most memory request bodies may take at once, all requests together: each body counts its stated `Content-Length`, 24 times over when it is parsed on the request thread (what parsed JSON of tiny values can take; a body an offload worker parses counts once), from when it is first read until its answer is done. A JSON or protobuf body whose size is known only once read (compressed, or chunked) counts what has arrived, inflated, and its count grows as it arrives: past the budget it is refused mid-way, the same way (a multipart upload or a form of no stated length counts the most its route takes). A body that would go past it is answered 503 with `Retry-After: 1` at once, unread (a chunked one\'s connection then closed); one body is always taken when no other is being read. Without it, connections each sending a body up to `TRACELIGHT_BODY_LIMIT` could hold far more than the process has. `tracelight_held_entries` / `tracelight_held_size{structure="request_bodies"}` show what is being read.'],
  ['TRACELIGHT_UPLOAD_LIMIT_BYTES', '`1048576`', 'Largest code-scorer file; larger gets 413, as does an upload whose body is over this and 64 KiB, at once when its stated length says so (the room for the form\'s other fields). Protobuf OTLP exports: 16× this, once inflated; JSON ones are bodies under `TRACELIGHT_BODY_LIMIT`.'],
  ['TRACELIGHT_RATE_LIMIT_PER_MINUTE', '`6000`', 'Requests per minute per credential, per process (0: none); beyond it 429 with `Retry-After`. A caller is charged once known: to its API key, or to the user behind a token or a Basic pair (however the header is spelt, and every refreshed token shares the user\'s bucket). Failed authentications and the sign-in routes are charged to the client\'s address (an IPv6 client\'s /64 network, which one host is given), so guessing passwords or keys is limited whatever each attempt presents; and from an address whose bucket is empty a Basic pair is refused without its password being checked. A bucket is kept only until it has refilled (a minute at most), at most 100,000 of them (past that the least recently used goes first): `tracelight_held_entries{structure="rate_limit_buckets"}` says how many. `/healthcheck`, `/readyz`, `/metrics` and the docs are not limited.'],
  ['TRACELIGHT_SIGN_IN_FAILURES_PER_MINUTE', '`30`', 'Failed sign-ins per minute per client address, per process (0: no limit of their own): a wrong password at `/login` or in a Basic pair, a wrong key at `/login/api_key`. Past it, sign-ins from that address (those routes, and requests with a Basic pair) are answered 429 with `Retry-After` without their password or key being checked, the right one too, until the bucket refills; requests with a token or an API key are not held back, and a sign-in that succeeds costs nothing. Each sign-in, and each different Basic pair an address presents, takes its share before it is checked and gives it back unless wrong, so guesses sent all at once are held to the budget too; a pair already being checked for that address (a client\'s requests in parallel) waits for that check, which it shares, and takes nothing. The address is counted as for `TRACELIGHT_RATE_LIMIT_PER_MINUTE`; `tracelight_held_entries{structure="sign_in_failure_buckets"}` says how many buckets are held.'],
  ['TRACELIGHT_METRICS_TOKEN', 'unset: `/metrics` is open', 'A bearer token `/metrics` then asks for (`Authorization: Bearer <token>`, Prometheus\'s `authorization` scrape setting; at least 32 characters of `A-Z a-z 0-9 - . _ ~ + /`, e.g. `openssl rand -hex 32`): 401 without it or with another, compared in constant time. Unset, `/metrics` answers anyone who reaches the port: route names, request counts and timings, memory; then firewall it or bind to a private interface.'],
  ['TRACELIGHT_CORS_ORIGINS', 'unset: no cross-origin calls from browsers', 'The origins whose web pages may call the API from a browser and read its answers (CORS): a comma-separated list of exact origins (`https://app.example.com,https://admin.example.com`: scheme, host and port, as browsers send `Origin`), which may also send credentials (`credentials: "include"`, for the refresh cookie where its `SameSite=Strict` lets it go: a page of the same site), or `*` for any origin, without credentials (a page then sends a token, API key or Basic pair itself). Preflights are answered 204 (kept by the browser 10 minutes) before credentials and rate limits; `/metrics` gets no CORS headers; answers, refusals by its routes included (not those Node makes before a request is whole: 400, 408, 431), name the origin and expose `Retry-After`, `X-Request-Id`, `WWW-Authenticate` and `Content-Encoding`. An origin not listed gets no CORS headers: its page cannot read the answer (the request itself still reaches the server, as any client\'s can).'],
  ['TRACELIGHT_TRUST_PROXY', '`false`', '`true` behind a reverse proxy, or how many stand in a chain before the server (`2`: a CDN, then a load balancer). The client address (for the rate limit) is then the `X-Forwarded-For` entry the outermost proxy added, counted that many from the right, so that what a client writes there itself is never taken for its address (an entry that is no address charges the proxy); the scheme (the refresh cookie\'s `Secure`) from the `X-Forwarded-Proto` entry the outermost proxy wrote, counted from the right likewise (the one entry of a proxy that sets the header whole). Leave it `false` when clients reach the server directly, or they could choose their address, and let them reach it only through the proxies.'],
  ['TRACELIGHT_REQUEST_TIMEOUT_MS', '`30000`', 'Longest time to receive a whole request (past it 408), and, 1.5 s more, longest an answer may wait on a client that stops reading it, counted from when the system last took more of it (the connection is then closed). The system takes an answer in steps, as its client frees room in the buffers of the connection (megabytes between a fast client and the server): a client reading so slowly that no step comes in that time is taken for one that stopped.'],
  ['TRACELIGHT_MAX_CONNECTIONS', 'the open-file limit (`ulimit -n`) less 256; `10000` where it cannot be read', 'Most connections open at once. Past it a new connection is closed at once, unanswered (counted in `tracelight_http_dropped_connections_total`), so that a flood of connections leaves the process the file descriptors its database, logs and workers need, and clients go elsewhere.'],
  ['TRACELIGHT_MAX_RECORDS_PER_REQUEST', '`10000`', 'Most traces and spans one ingest request (or OTLP export) may carry; beyond it 422 asking to split the batch (400 with a `google.rpc.Status` on the OTLP routes). They are counted before they are decoded (a protobuf export\'s on the wire), so a body of many tiny records is refused without being built.'],
  ['TRACELIGHT_PAGE_BYTES', '`16mb`', 'A page of a record search or of scorer versions ends early, `next_starting_token` set, once what it holds reaches this size stored (a page always holds at least one item): large records or versions are read in more pages, never held in memory whole.'],
  ['TRACELIGHT_SEARCH_TIMEOUT_MS', '`20000`', 'Longest a search of traces, spans or sessions may read before it is stopped and answered 503 with a `detail` asking to narrow it: below the typed client\'s 30 s timeout and a proxy\'s usual 30 to 60 s, so that the caller learns why. A filter that no index narrows (docs/performance.md) and that matches little of a large run reads all of it (some seconds a million spans on SQLite): without a bound, a few such searches would hold the storage\'s readers (SQLite\'s search threads) for as long as each takes. Counted from when the search is handed to the storage: on SQLite, time spent queued behind other searches on a search thread counts too, and one whose time ran out while queued is answered at once, unread; on MongoDB, it is the server\'s `maxTimeMS`; its request\'s log line says `"note":"timed out"`.'],
  ['TRACELIGHT_SHUTDOWN_TIMEOUT_MS', '`10000`', 'Longest a stop (SIGTERM or SIGINT) may take, from 1000 to 3600000: past it the process exits at once, with status 1 and one `error` line saying what it still waited for and how many requests were left unanswered (docs/operations.md, "Stopping"). Keep it below the time your orchestrator waits before it kills the process (Kubernetes\' `terminationGracePeriodSeconds`, 30 s by default; `docker stop`\'s 10 s, which `--stop-timeout` lengthens), so that a stop that cannot finish says why rather than being killed without a word.'],
  ['TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS', 'half of `TRACELIGHT_SHUTDOWN_TIMEOUT_MS` (`5000`)', 'Once stopping, how long a request still waiting on its client (a body not sent, an answer not read, or read too slowly to be out by then) is waited for; then its connection is cut, so that no client holds the stop, and a `warn` line says how many were. The rest of the stop\'s time is for the server\'s own work to end: the database\'s close, and scoring jobs in hand, which get 3 s at most and never more than this grace (those still running are claimed again once their leases run out). Less than `TRACELIGHT_SHUTDOWN_TIMEOUT_MS`; 0 cuts such requests at once.'],
  ['TRACELIGHT_RETENTION_DAYS', '`0` (keep for good)', 'Traces, spans and sessions whose `created_at` is more than this many days old are removed, on start and every hour after, a few thousand at a time so that writes go on meanwhile (each sweep that removes any is logged, and counted in `tracelight_retention_removed_records_total`). A run, its settings and its column list stay.'],
  ['TRACELIGHT_OFFLOAD_WORKERS', '`1`', 'Worker threads that parse, validate and store large ingest bodies and OTLP exports off the event loop (0: none; every body is then handled on the request thread).'],
  ['TRACELIGHT_OFFLOAD_QUEUE_BYTES', '`128mb`', 'The most bytes of bodies the offload workers may hold together, waiting or being handled (at least one body is always taken). A request that would go past it is answered 503 with `Retry-After: 1` at once, its body dropped: without a bound, bodies sent faster than the workers handle them would all be held, up to `TRACELIGHT_BODY_LIMIT` on every connection. `tracelight_held_entries` / `tracelight_held_size{structure="offload_queue"}` show what they hold.'],
  ['TRACELIGHT_OFFLOAD_MIN_BYTES', '`1048576`', 'Ingest bodies and OTLP exports this large or larger go to an offload worker: by their `Content-Length` when they are sent as they are, once read and inflated when compressed or chunked (JSON or protobuf alike).'],
  ['TRACELIGHT_LOG_BUFFER', '`16mb`', 'The most bytes of log lines waiting to be written, to stdout and to stderr each (at least `64kb`). Lines are written asynchronously; when whatever reads the server\'s output stops reading (a log shipper that hangs, a full pipe) or its writes fail (the disk of a log file full: `ENOSPC`, `EDQUOT`, `EFBIG`, `EIO`…), lines past this are dropped rather than held, and requests are answered as ever. Dropped lines (the offload workers\' included: each writes through bounded destinations of its own) are counted in `tracelight_log_dropped_lines_total{stream}`, and once the stream is written again one `warn` line says how many were dropped (`dropped_lines`).'],
  ['TRACELIGHT_V8_PRETENURING', '`false`', 'Whether V8 may allocate the objects made at a place in the code straight into its old generation once most of them have outlived a young collection (allocation-site pretenuring, on in plain Node). Off here: under load a burst or a lull was enough for V8 to pretenure objects Node\'s HTTP layer makes for each request; each of them, dead but in the old generation, then kept what it pointed to alive through young collections until a full one, and the writes\' p99 at half load was up to four times what it is without (docs/benchmarks.md). `true` leaves V8 its default. It is process-wide: the writer, search and offload threads follow it too.'],
  // The scoring settings (shared with the evaluator app): docs/evaluation.md's table.
  ...SCORING_VARIABLES,
];

/** The smallest body limit: a sign-in's body fits, with room. */
const MIN_BODY_LIMIT = 1024;

/** Digits only: Number() also reads `0x50`, `1e3` and ` 80`, which no operator means as written. */
const integer =
  (name: string, min: number, max: number, fallback: number) =>
  (env: Env): E.Either<string, number> => {
    const raw = env[name];
    if (raw === undefined || raw === '') return E.right(fallback);
    const n = /^\d{1,16}$/.test(raw) ? Number(raw) : Number.NaN;
    return Number.isInteger(n) && n >= min && n <= max
      ? E.right(n)
      : E.left(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
  };

/**
 * TRACELIGHT_CORS_ORIGINS read: unset or empty is none; `*` alone is any origin; otherwise a comma-separated
 * list of origins, each scheme, host and port as a browser sends it in `Origin` (no path, no trailing slash).
 */
const parseCorsOrigins = (raw: string | undefined): { readonly origins: ReadonlyArray<string> | '*' | undefined } | { readonly problem: string } => {
  if (raw === undefined || raw.trim() === '') return { origins: undefined };
  if (raw.trim() === '*') return { origins: '*' };
  const entries = raw.split(',').map((e) => e.trim()).filter((e) => e !== '');
  /** An entry as browsers send it in `Origin` (host in lower case, no default port), or undefined for one that is no origin. */
  const originOf = (e: string): string | undefined => {
    try {
      const url = new URL(e);
      const bare = (url.protocol === 'http:' || url.protocol === 'https:') && url.username === '' && url.password === '' && url.pathname === '/' && url.search === '' && url.hash === '';
      return bare && !e.endsWith('/') ? url.origin : undefined;
    } catch {
      return undefined;
    }
  };
  const bad = entries.filter((e) => originOf(e) === undefined);
  if (entries.length === 0 || bad.length > 0)
    return {
      problem: `TRACELIGHT_CORS_ORIGINS must be * or a comma-separated list of origins like https://app.example.com (scheme, host and port only, no path or trailing slash), got ${bad.length > 0 ? bad.map((b) => JSON.stringify(b)).join(', ') : JSON.stringify(raw)}`,
    };
  return { origins: entries.map((e) => originOf(e)!) };
};

/** A bearer token (RFC 6750's b64token) long enough that guessing it is hopeless. */
const METRICS_TOKEN = /^[A-Za-z0-9\-._~+/]{32,}=*$/;

/** Collects every problem, not just the first, so one restart fixes them all. */
export const loadConfig = (env: Env): E.Either<ReadonlyArray<string>, ServerConfig> => {
  const problems: string[] = [];
  const take = <A>(r: E.Either<string, A>, fallback: A): A =>
    pipe(
      r,
      E.getOrElse((p) => {
        problems.push(p);
        return fallback;
      }),
    );
  const storage = loadStorageConfig(env);
  if (E.isLeft(storage)) problems.push(...storage.left);
  const scoring = loadScoringConfig(env);
  if (E.isLeft(scoring)) problems.push(...scoring.left);
  const trustProxy = env['TRACELIGHT_TRUST_PROXY'] || 'false';
  const trustedProxies = trustProxy === 'false' ? 0 : trustProxy === 'true' ? 1 : /^([1-9]|1[0-6])$/.test(trustProxy) ? Number(trustProxy) : undefined;
  if (trustedProxies === undefined)
    problems.push(`TRACELIGHT_TRUST_PROXY must be true, false or a number of proxies from 1 to 16, got ${JSON.stringify(trustProxy)}`);
  const pretenuring = env['TRACELIGHT_V8_PRETENURING'] || 'false';
  // Applied before this runs, by ./v8-settings (imported first); checked here with everything else.
  if (pretenuring !== 'true' && pretenuring !== 'false') problems.push(`TRACELIGHT_V8_PRETENURING must be true or false, got ${JSON.stringify(pretenuring)}`);
  const writer = env['TRACELIGHT_SQLITE_WRITER'] || 'thread';
  if (writer !== 'thread' && writer !== 'inline') problems.push(`TRACELIGHT_SQLITE_WRITER must be thread or inline, got ${JSON.stringify(writer)}`);
  const adminEmail = env['TRACELIGHT_ADMIN_EMAIL'] || undefined;
  const adminPassword = env['TRACELIGHT_ADMIN_PASSWORD'] || undefined;
  const secretKey = env['TRACELIGHT_SECRET_KEY'] || undefined;
  const metricsToken = env['TRACELIGHT_METRICS_TOKEN'] || undefined;
  // Not repeated in the report either: it is a secret.
  if (metricsToken !== undefined && !METRICS_TOKEN.test(metricsToken))
    problems.push('TRACELIGHT_METRICS_TOKEN must be at least 32 characters of A-Z, a-z, 0-9 and -._~+/ (a bearer token, e.g. from openssl rand -hex 32)');
  // Checked here, not first when the key is loaded, so that it is reported with everything else (never repeated: it is a secret).
  if (secretKey !== undefined && !isUsableSecretKey(secretKey)) problems.push(SECRET_KEY_RULE);
  const previousSecretKey = env['TRACELIGHT_PREVIOUS_SECRET_KEY'] || undefined;
  if (previousSecretKey !== undefined && !isUsableSecretKey(previousSecretKey))
    problems.push(SECRET_KEY_RULE.replace('TRACELIGHT_SECRET_KEY', 'TRACELIGHT_PREVIOUS_SECRET_KEY'));
  // Both given and usable: the same key twice is reported here with the rest (a key in secret.key is compared when it is loaded).
  else if (previousSecretKey !== undefined && secretKey !== undefined && isUsableSecretKey(secretKey)) {
    const same = sameKeysProblem(parseSecretKey(secretKey), parseSecretKey(previousSecretKey));
    if (same !== undefined) problems.push(same);
  }
  const passwordCost = passwordCostSetting(env['TRACELIGHT_PASSWORD_COST']);
  if ('problem' in passwordCost) problems.push(passwordCost.problem);
  const cors = parseCorsOrigins(env['TRACELIGHT_CORS_ORIGINS']);
  if ('problem' in cors) problems.push(cors.problem);
  if ((adminEmail === undefined) !== (adminPassword === undefined))
    problems.push('TRACELIGHT_ADMIN_EMAIL and TRACELIGHT_ADMIN_PASSWORD must be set together');
  // The first admin is made by the same rules as any user (bootstrapAdmin): a start that would fail at it fails here.
  if (adminEmail !== undefined && !isEmail(normaliseEmail(adminEmail)))
    problems.push(`TRACELIGHT_ADMIN_EMAIL must be an email address, got ${JSON.stringify(adminEmail)}`);
  if (adminPassword !== undefined && adminPassword.length < MIN_PASSWORD_LENGTH)
    problems.push(`TRACELIGHT_ADMIN_PASSWORD must have at least ${MIN_PASSWORD_LENGTH} characters`);
  // Below a kilobyte not even a sign-in fits: every body would get 413 (0 is no "no limit" here).
  const bodyLimit = env['TRACELIGHT_BODY_LIMIT'] || '10mb';
  const bodyLimitBytes = byteSize(bodyLimit);
  if (bodyLimitBytes === undefined || bodyLimitBytes < MIN_BODY_LIMIT)
    problems.push(`TRACELIGHT_BODY_LIMIT must be a size of at least 1kb, like 10mb or 512kb, got ${JSON.stringify(bodyLimit)}`);
  const apiBodyLimit = env['TRACELIGHT_API_BODY_LIMIT'] || '1mb';
  const apiBodyLimitBytes = byteSize(apiBodyLimit);
  if (apiBodyLimitBytes === undefined || apiBodyLimitBytes < MIN_BODY_LIMIT)
    problems.push(`TRACELIGHT_API_BODY_LIMIT must be a size of at least 1kb, like 1mb or 512kb, got ${JSON.stringify(apiBodyLimit)}`);
  // Its default is capped by a smaller TRACELIGHT_BODY_LIMIT; a value set above it would be capped without a word.
  else if (env['TRACELIGHT_API_BODY_LIMIT'] && bodyLimitBytes !== undefined && apiBodyLimitBytes > bodyLimitBytes)
    problems.push(`TRACELIGHT_API_BODY_LIMIT (${apiBodyLimit}) must not be more than TRACELIGHT_BODY_LIMIT (${bodyLimit}), which bounds every body`);
  const bodyBudget = env['TRACELIGHT_BODY_BUDGET'] || '512mb';
  const bodyBudgetBytes = byteSize(bodyBudget, true);
  if (bodyBudgetBytes === undefined || bodyBudgetBytes < 1) problems.push(`TRACELIGHT_BODY_BUDGET must look like 512mb or 2gb, got ${JSON.stringify(bodyBudget)}`);
  const offloadQueue = env['TRACELIGHT_OFFLOAD_QUEUE_BYTES'] || '128mb';
  const offloadQueueBytes = byteSize(offloadQueue);
  if (offloadQueueBytes === undefined || offloadQueueBytes < 1)
    problems.push(`TRACELIGHT_OFFLOAD_QUEUE_BYTES must look like 128mb or 512kb, got ${JSON.stringify(offloadQueue)}`);
  const pageSize = env['TRACELIGHT_PAGE_BYTES'] || '16mb';
  const pageBytes = byteSize(pageSize);
  if (pageBytes === undefined || pageBytes < 1) problems.push(`TRACELIGHT_PAGE_BYTES must look like 16mb or 512kb, got ${JSON.stringify(pageSize)}`);
  const logBuffer = env['TRACELIGHT_LOG_BUFFER'] || '16mb';
  const logBufferBytes = byteSize(logBuffer);
  // Below 64 KiB the lines of one busy event-loop turn, which leave in one write, might not fit even when the reader keeps up.
  if (logBufferBytes === undefined || logBufferBytes < 65_536)
    problems.push(`TRACELIGHT_LOG_BUFFER must be a size of at least 64kb, like 16mb or 512kb, got ${JSON.stringify(logBuffer)}`);
  const shutdownTimeoutMs = take(integer('TRACELIGHT_SHUTDOWN_TIMEOUT_MS', 1000, 3_600_000, 10_000)(env), 10_000);
  const defaultGraceMs = Math.floor(shutdownTimeoutMs / 2);
  const shutdownClientGraceMs = take(integer('TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS', 0, 3_600_000, defaultGraceMs)(env), defaultGraceMs);
  // A grace as long as the stop would never cut a client before the forced exit, which is what it is for.
  if (env['TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS'] && shutdownClientGraceMs >= shutdownTimeoutMs)
    problems.push(
      `TRACELIGHT_SHUTDOWN_CLIENT_GRACE_MS (${shutdownClientGraceMs}) must be less than TRACELIGHT_SHUTDOWN_TIMEOUT_MS (${shutdownTimeoutMs}): clients are cut off after it so that the stop can end before it is forced`,
    );
  const settings: Omit<ServerConfig, keyof StorageConfig | keyof ScoringConfig> = {
    host: env['TRACELIGHT_HOST'] || '127.0.0.1',
    port: take(integer('TRACELIGHT_PORT', 0, 65535, 8088)(env), 8088),
    sqliteWriter: writer === 'inline' ? 'inline' : 'thread',
    sqliteSearchThreads: take(integer('TRACELIGHT_SQLITE_SEARCH_THREADS', 0, 64, 2)(env), 2),
    secretKey,
    previousSecretKey,
    tokenTtlSeconds: take(integer('TRACELIGHT_TOKEN_TTL_SECONDS', 1, 31_536_000, 3600)(env), 3600),
    refreshTokenTtlSeconds: take(integer('TRACELIGHT_REFRESH_TOKEN_TTL_SECONDS', 60, 31_536_000, 604_800)(env), 604_800),
    refreshReuseGraceMs: take(integer('TRACELIGHT_REFRESH_REUSE_GRACE_MS', 0, 300_000, 5000)(env), 5000),
    passwordCacheTtlSeconds: take(integer('TRACELIGHT_PASSWORD_CACHE_TTL_SECONDS', 0, 3600, 60)(env), 60),
    passwordCost: 'cost' in passwordCost ? passwordCost.cost : DEFAULT_PASSWORD_COST,
    credentialCacheMs: take(integer('TRACELIGHT_CREDENTIAL_CACHE_MS', 0, 600_000, 2000)(env), 2000),
    adminEmail,
    adminPassword,
    bodyLimitBytes: bodyLimitBytes ?? 0,
    apiBodyLimitBytes: apiBodyLimitBytes ?? 0,
    bodyBudgetBytes: bodyBudgetBytes ?? 0,
    uploadLimitBytes: take(integer('TRACELIGHT_UPLOAD_LIMIT_BYTES', 1, 1 << 30, 1 << 20)(env), 1 << 20),
    rateLimitPerMinute: take(integer('TRACELIGHT_RATE_LIMIT_PER_MINUTE', 0, 10_000_000, 6000)(env), 6000),
    signInFailuresPerMinute: take(integer('TRACELIGHT_SIGN_IN_FAILURES_PER_MINUTE', 0, 10_000_000, 30)(env), 30),
    trustedProxies: trustedProxies ?? 0,
    metricsToken,
    corsOrigins: 'origins' in cors ? cors.origins : undefined,
    requestTimeoutMs: take(integer('TRACELIGHT_REQUEST_TIMEOUT_MS', 1000, 3_600_000, 30_000)(env), 30_000),
    ...(env['TRACELIGHT_MAX_CONNECTIONS'] ? { maxConnections: take(integer('TRACELIGHT_MAX_CONNECTIONS', 1, 1_000_000, 1)(env), 1) } : {}),
    maxRecordsPerRequest: take(integer('TRACELIGHT_MAX_RECORDS_PER_REQUEST', 1, 1_000_000, 10_000)(env), 10_000),
    pageBytes: pageBytes ?? 0,
    searchTimeoutMs: take(integer('TRACELIGHT_SEARCH_TIMEOUT_MS', 100, 3_600_000, 20_000)(env), 20_000),
    shutdownTimeoutMs,
    shutdownClientGraceMs,
    offloadWorkers: take(integer('TRACELIGHT_OFFLOAD_WORKERS', 0, 64, 1)(env), 1),
    offloadMinBytes: take(integer('TRACELIGHT_OFFLOAD_MIN_BYTES', 0, 1 << 30, 1 << 20)(env), 1 << 20),
    offloadQueueBytes: offloadQueueBytes ?? 0,
    retentionDays: take(integer('TRACELIGHT_RETENTION_DAYS', 0, 36_500, 0)(env), 0),
    logBufferBytes: logBufferBytes ?? 0,
  };
  return E.isLeft(storage) || E.isLeft(scoring) || problems.length > 0 ? E.left(problems) : E.right({ ...storage.right, ...scoring.right, ...settings });
};
