// One structured line and one metrics sample per request, with a request id (honoured from
// X-Request-Id, else generated) that is also returned to the caller. Never headers or bodies: they
// carry credentials. Logging and metrics share this one outermost middleware: one timer per request.
import { randomUUID } from 'node:crypto';
import type { Next } from 'koa';
import { statusSent } from './answered-status';
import type { AppContext } from './context';
import type { HttpLogger } from './logger';
import type { HttpMetrics } from './metrics';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** A request's id: the caller's `X-Request-Id` when it is a plain token of at most 128 characters, else a new UUID. */
export const requestIdOf = (given: string | undefined): string => (given !== undefined && REQUEST_ID.test(given) ? given : randomUUID());

export const accessLog =
  (logger: HttpLogger, metrics: HttpMetrics) =>
  async (ctx: AppContext, next: Next): Promise<void> => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(ctx.get('x-request-id'));
    ctx.set('X-Request-Id', requestId);
    // No answer is to be read by a browser as another type than it says (an uploaded scorer's code, say).
    ctx.set('X-Content-Type-Options', 'nosniff');
    try {
      await next();
    } finally {
      const ns = Number(process.hrtime.bigint() - started);
      // Not always what the application set: Node may have answered the request itself (a body too slow: 408).
      const status = statusSent(ctx.res, ctx.status);
      metrics.record(ctx, status, ns / 1e9);
      const line: Record<string, unknown> = { request_id: requestId, method: ctx.method, path: ctx.path, status, duration_ms: ns / 1e6 };
      if (ctx.state.note !== undefined) line['note'] = ctx.state.note;
      // A failure an operator must act on (storage full, an unexpected throw, here or in an offload
      // worker) is this same one line, at error level, saying why: every line about a request has its id.
      const failure = ctx.state.failure;
      if (failure === undefined) logger.info(line, 'request');
      else logger.error({ ...line, error: failure }, 'request');
    }
  };
