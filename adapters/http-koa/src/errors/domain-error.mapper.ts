// The one place that maps domain errors to HTTP statuses and bodies. Exhaustive by construction.
import type { DomainError } from '@tracelight/domain';
import { type ValidationError, withEchoedInput } from '@tracelight/api-schema';

export interface HttpError {
  readonly status: number;
  readonly body: { readonly detail: string | ReadonlyArray<ValidationError> };
  readonly headers?: Readonly<Record<string, string>>;
  /** Why, for the server's log line of the request (never sent): set where an operator must act. */
  readonly reason?: string;
  /** Said on the request's log line at its usual level (never sent): a refusal that is the request's own doing, but worth seeing. */
  readonly note?: string;
}

/** An entity's name as a sentence begins with it: `log_stream` → `Log stream`. */
const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1).replaceAll('_', ' ');

export const toHttpError = (error: DomainError): HttpError => {
  switch (error._tag) {
    case 'NotFound':
      return { status: 404, body: { detail: `${capitalise(error.entity)} not found` } };
    case 'Conflict':
      return { status: 409, body: { detail: error.message } };
    case 'Invalid':
      return {
        status: 422,
        body: {
          detail: [
            withEchoedInput({
              loc: ['body', ...error.path],
              msg: `Value error, ${error.message}`,
              type: 'value_error',
              ...(error.input !== undefined ? { input: error.input } : {}),
            }),
          ],
        },
      };
    case 'Unauthorized':
      return { status: 401, body: { detail: error.message }, headers: { 'WWW-Authenticate': 'Bearer' } };
    case 'Forbidden':
      return { status: 403, body: { detail: error.message } };
    // The client learns nothing of the cause; the request's log line does (the storage unreachable, its
    // writer thread not starting): an operator seeing 503s, from /readyz too, needs to know why.
    case 'Unavailable':
      return { status: 503, body: { detail: 'Service temporarily unavailable' }, reason: `unavailable: ${error.message}` };
    // 503 as a query engine answers a query stopped at its time limit (the work is refused, not the
    // request): the detail says why and what helps, as retrying the same search at once would not.
    case 'TimedOut':
      return { status: 503, body: { detail: error.message }, note: 'timed out' };
    // 429 when the caller's own requests fill its share, 503 when everyone's fill the service's: either
    // way the client is told what waits and when to come back.
    case 'Busy':
      return { status: error.mine ? 429 : 503, body: { detail: error.message }, headers: { 'Retry-After': String(error.retryAfterSeconds) }, note: 'busy' };
    // 507, not 503: nothing was stored, retrying will not help until space is freed, and reads are
    // still served (the service is not unavailable; /readyz stays ready).
    case 'StorageFull':
      return {
        status: 507,
        body: { detail: 'Insufficient storage: this write was not stored. Try it again once space has been freed.' },
        reason: `storage full: ${error.message}`,
      };
  }
};
