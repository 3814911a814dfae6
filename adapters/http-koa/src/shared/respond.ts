// Writing errors and timestamps the same way everywhere.
import type { HttpError } from '../errors/domain-error.mapper';
import type { AppContext } from './context';

export const sendError = (ctx: AppContext, error: HttpError): void => {
  ctx.status = error.status;
  // A chunked body refused as too large, or as past the body budget, is left unread, and nothing says
  // where it ends: the connection cannot carry another request after it. (One of a stated length is read out and
  // dropped by Node, and the connection kept: closing it while the client still sends would cost the
  // client its 413, as a broken pipe.)
  if ((error.status === 413 || error.status === 503) && ctx.req.headers['content-length'] === undefined && ctx.req.headers['transfer-encoding'] !== undefined)
    ctx.set('Connection', 'close');
  for (const [name, value] of Object.entries(error.headers ?? {})) ctx.set(name, value);
  if (error.reason !== undefined) ctx.state.failure = error.reason;
  if (error.note !== undefined) ctx.state.note = error.note;
  ctx.body = error.body;
};

/** A body that could not be read: 400, 413 and 415 say so in words; a 422 keeps the spec's detail[] shape. */
export const bodyFailure = (status: 400 | 413 | 415 | 422, message: string): HttpError =>
  status === 422
    ? { status, body: { detail: [{ loc: ['body'], msg: `Value error, ${message}`, type: 'value_error', input: null }] } }
    : { status, body: { detail: message } };

export const iso = (d: Date): string => d.toISOString();
export const isoOrNull = (d: Date | null): string | null => (d === null ? null : d.toISOString());
