// Outermost middleware: shapes body-parser failures and turns any unexpected throw into a bare 500,
// its stack logged in the request's own line (with its request id), never sent.
import type { Next } from 'koa';
import type { AppContext } from '../shared/context';
import { bodyFailure, sendError } from '../shared/respond';
import { malformedJson } from './malformed-json';

interface ParserError {
  status?: number;
  statusCode?: number;
  type?: string;
  message?: string;
  body?: string;
  expose?: boolean;
}

const asParserError = (e: unknown): ParserError => (typeof e === 'object' && e !== null ? (e as ParserError) : {});

/** zlib's errors (Z_DATA_ERROR, …) and brotli's (ERR__ERROR_FORMAT_…), as the body parser's inflation throws them. */
const isDecompressionError = (e: ParserError & { code?: unknown }): boolean =>
  typeof e.code === 'string' && (e.code.startsWith('Z_') || e.code.startsWith('ERR__ERROR') || e.code.startsWith('ERR_BROTLI') || e.code === 'ERR_ZLIB_INITIALIZATION_FAILED');

export const errorMiddleware = async (ctx: AppContext, next: Next): Promise<void> => {
  try {
    await next();
  } catch (thrown) {
    const e = asParserError(thrown);
    const status = e.status ?? e.statusCode;
    // co-body marks a body that is not JSON with status 400 and keeps the raw text in `body`.
    if (thrown instanceof SyntaxError && status === 400 && typeof e.body === 'string') {
      sendError(ctx, malformedJson(e.body, thrown));
    } else if (status === 413) {
      sendError(ctx, { status: 413, body: { detail: 'Request body too large' } });
    } else if (isDecompressionError(e)) {
      // A body its Content-Encoding does not describe (gzip that is not gzip, say).
      sendError(ctx, bodyFailure(422, 'Malformed compressed body'));
    } else if (status === 415 || e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') {
      ctx.status = 415;
      ctx.body = { detail: 'Unsupported request encoding' };
    } else if (status !== undefined && status >= 400 && status < 500 && e.expose) {
      ctx.status = status;
      ctx.body = { detail: e.message ?? 'Bad request' };
    } else {
      ctx.state.failure = `unhandled error: ${thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown)}`;
      ctx.status = 500;
      ctx.body = { detail: 'Internal Server Error' };
    }
  }
};
