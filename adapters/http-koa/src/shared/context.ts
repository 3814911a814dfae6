// What the middlewares leave on the Koa context for handlers.
import type { Principal } from '@tracelight/domain';
import type { Context, Middleware } from 'koa';

export interface TracelightState {
  principal?: Principal;
  /** Why the request failed, when an operator must act (storage full, a bug): logged with the request, never sent. */
  failure?: string;
  /** What the request's ordinary log line adds about a refusal the caller can act on (a search stopped at its time budget). */
  note?: string;
}

export type AppContext = Context & { state: TracelightState };
export type AppMiddleware = Middleware<TracelightState>;

/** The authenticated caller; only called on routes behind the auth middleware. */
export const principalOf = (ctx: { state: TracelightState }): Principal => {
  const p = ctx.state.principal;
  if (!p) throw new Error('route is not behind the authentication middleware');
  return p;
};
