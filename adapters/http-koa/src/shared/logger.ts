// The HTTP edge logs through this port; the composition root decides where lines go.
export interface HttpLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
export const HttpLogger = Symbol.for('tracelight.HttpLogger');

export interface HttpOptions {
  /** Largest accepted JSON or form body, in bytes: a trace batch's (a route that offloads). */
  readonly bodyLimitBytes: number;
  /**
   * Largest JSON body of every other route (projects, runs, scorers, searches, settings), in bytes, when
   * less than `bodyLimitBytes`: these bodies are parsed on the request thread, where megabytes of JSON
   * hold every other request for as long as they take to parse.
   */
  readonly apiBodyLimitBytes?: number;
  /** Largest accepted multipart upload (code scorer files), in bytes. */
  readonly uploadLimitBytes: number;
  /** Requests per minute per credential (0: no limit). */
  readonly rateLimitPerMinute: number;
  /**
   * Failed sign-ins (a wrong password at /login or in a Basic pair, a wrong key at /login/api_key) per
   * minute per client address (0 or absent: no limit of their own); past it, sign-ins from that
   * address are answered 429 unchecked.
   */
  readonly signInFailuresPerMinute?: number;
  /**
   * How many reverse proxies stand in front of the server (0 or absent: none). With any, X-Forwarded-Proto
   * is believed, and the client address is the X-Forwarded-For entry the outermost proxy added: that many
   * from the right, so that what a client writes there itself is never taken for its address.
   */
  readonly trustedProxies?: number;
  /** The most memory request bodies may take at once, all requests together, as `HttpApp` counts it (absent: no bound but each body's). */
  readonly bodyBudgetBytes?: number;
  /** The bearer token `/metrics` asks for (absent: `/metrics` answers anyone). */
  readonly metricsToken?: string;
  /** The origins whose pages may call the API from a browser (CORS), or `*` for any (absent: none). */
  readonly corsOrigins?: ReadonlyArray<string> | '*';
  /** The built web console (its index.html and assets), served at /console; absent or not built: no console. */
  readonly consoleDir?: string;
}
export const HttpOptions = Symbol.for('tracelight.HttpOptions');
