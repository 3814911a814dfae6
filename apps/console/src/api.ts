// The console's one connection to the API: the typed client, on the page's own origin, with the
// person's session (the refresh cookie the browser keeps), and the sentences its errors read as.
import { TracelightClient, TracelightError } from '@tracelight/client';

export const api = new TracelightClient(location.origin, { session: 'cookie' });

/** The sentence the API gave for an error (each of a 422's entries, with where), or what kept any answer from coming. */
export const errorText = (error: unknown): string => {
  if (error instanceof TracelightError) {
    if (error.status === 0) return `The server could not be reached: ${String(error.detail)}`;
    if (typeof error.detail === 'string') return error.detail;
    return error.detail.map((d) => `${d.loc.filter((part) => part !== 'body').join(' › ') || 'request'}: ${d.msg}`).join('; ');
  }
  return error instanceof Error ? error.message : String(error);
};

/** An error that means the person is no longer signed in: the session page takes over. */
export const endsSession = (error: unknown): error is TracelightError => error instanceof TracelightError && error.status === 401;

/** An error for a thing that is not there, or not the caller's. */
export const isNotFound = (error: unknown): boolean => error instanceof TracelightError && error.status === 404;
