// The HTTP edge logs through this port; the composition root decides where lines go.
export interface HttpLogger {
  info(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}
export const HttpLogger = Symbol.for('tracelight.HttpLogger');

export interface HttpOptions {
  /** Largest accepted JSON or form body, in bytes. */
  readonly bodyLimitBytes: number;
  /** Largest accepted multipart upload (code scorer files), in bytes. */
  readonly uploadLimitBytes: number;
  /** Requests per minute per credential (0: no limit). */
  readonly rateLimitPerMinute: number;
  /** Behind a reverse proxy: X-Forwarded-For and X-Forwarded-Proto are believed. */
  readonly trustProxy?: boolean;
}
export const HttpOptions = Symbol.for('tracelight.HttpOptions');
