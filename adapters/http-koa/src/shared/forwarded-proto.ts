// The scheme a request came in by, behind trusted reverse proxies (TRACELIGHT_TRUST_PROXY). Koa believes
// the leftmost X-Forwarded-Proto entry; a proxy that appends to the header (as to X-Forwarded-For) leaves
// the client's own words there, so the entry taken is the one the outermost trusted proxy wrote, counted
// from the right as the client address is. A proxy that sets the header whole leaves one entry: that one.
import type Koa from 'koa';

/** The scheme `header` says, `proxies` trusted proxies in front; 'http' when it says nothing usable. */
export const forwardedProto = (header: string | undefined, proxies: number): 'http' | 'https' => {
  if (!header) return 'http';
  const entries = header.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const said = entries[Math.max(0, entries.length - proxies)];
  return said?.toLowerCase() === 'https' ? 'https' : 'http';
};

/** Makes `ctx.protocol` (and so `ctx.secure`) of `app` read X-Forwarded-Proto as `forwardedProto` does. */
export const believeForwardedProto = (app: Koa, proxies: number): void => {
  Object.defineProperty(app.request, 'protocol', {
    configurable: true,
    get(this: Koa.Request): 'http' | 'https' {
      if ((this.socket as { encrypted?: boolean }).encrypted) return 'https';
      return proxies > 0 ? forwardedProto(this.get('X-Forwarded-Proto') || undefined, proxies) : 'http';
    },
  });
};
