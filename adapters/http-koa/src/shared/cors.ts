// Cross-origin requests from browsers (CORS), for the origins the operator lists: a web app served from
// another origin may then call the API and read its answers (all but /metrics). None listed, none is mounted, and browsers
// keep other origins from reading anything, as the same-origin policy has it.
import cors from '@koa/cors';
import type { Middleware } from 'koa';

/** What answers a browser may show the calling page, besides the CORS-safelisted ones. */
const EXPOSED = ['Retry-After', 'X-Request-Id', 'WWW-Authenticate', 'Content-Encoding'];

/** How long a browser may keep a preflight's answer: ten minutes (Chromium caps it at two hours, Firefox at a day). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/**
 * `origins`: exact origins (`https://app.example.com`), whose requests may carry credentials (the
 * refresh cookie, where its SameSite lets the browser send it), or `*`: any origin, without credentials
 * (the bearer token, API key or Basic pair a page sends itself still work; cookies are not sent).
 * Preflights (OPTIONS with Access-Control-Request-Method) are answered 204 here, before credentials,
 * rate limits and routing; an origin not listed gets no CORS headers, so its page cannot read the answer.
 */
export const corsFor = (origins: ReadonlyArray<string> | '*'): Middleware => {
  const allowed = origins === '*' ? undefined : new Set(origins);
  return cors({
    origin: (ctx) => {
      const origin = ctx.get('Origin');
      if (origin === '') return '';
      return allowed === undefined ? '*' : allowed.has(origin) ? origin : '';
    },
    credentials: allowed !== undefined,
    allowMethods: ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'],
    exposeHeaders: EXPOSED,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
    // The headers stay on the context, which the error middleware answers from; @koa/cors would otherwise
    // also write them onto whatever was thrown (a TypeError, hiding it, for a thrown string).
    keepHeadersOnError: false,
    // Headers asked for are allowed (the default): every header the API reads is a credential or a
    // content type the route checks anyway.
  }) as Middleware;
};
