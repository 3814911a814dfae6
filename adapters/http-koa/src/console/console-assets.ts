// The web console's built files, read once at start and served from memory under /console: no request
// touches the file system, the API's routes never see these requests, and each file goes out in the
// brotli or gzip form the build precomputed, whichever the browser takes.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Middleware } from 'koa';

/** Where the console is served: its pages' routes are the browser's, under this prefix. */
export const CONSOLE_PATH = '/console';

export interface ConsoleFile {
  readonly type: string;
  readonly identity: Buffer;
  /** The build's `.br` and `.gz` companions, kept only where smaller than the file itself. */
  readonly br?: Buffer;
  readonly gzip?: Buffer;
  /** A digest of the file's bytes: for `If-None-Match`, which index.html is revalidated with. */
  readonly etag: string;
}

export interface ConsoleAssets {
  /** index.html, the answer to every page of the app. */
  readonly index: ConsoleFile;
  /** By path under the console's root (`assets/index-3f2a9c.js`). */
  readonly files: ReadonlyMap<string, ConsoleFile>;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** Hashed by the build, so a name always means the same bytes: kept by browsers and proxies for a year, never revalidated. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** The page itself names the current hashed files: always revalidated (a 304 when unchanged), so a new build is picked up at once. */
const REVALIDATE = 'no-cache';

/**
 * The page's policy: scripts, styles and calls from this origin only (the console calls the API on its
 * own origin), nothing framing it, no base or form target elsewhere: a script injected through some
 * stored text could neither load code nor send what it read to another host.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const fileOf = (absolute: string): ConsoleFile | undefined => {
  const type = TYPES[path.extname(absolute).toLowerCase()];
  if (type === undefined) return undefined;
  const identity = fs.readFileSync(absolute);
  const companion = (suffix: string): Buffer | undefined => {
    const file = `${absolute}${suffix}`;
    if (!fs.existsSync(file)) return undefined;
    const bytes = fs.readFileSync(file);
    return bytes.length < identity.length ? bytes : undefined;
  };
  const br = companion('.br');
  const gzip = companion('.gz');
  return {
    type,
    identity,
    ...(br ? { br } : {}),
    ...(gzip ? { gzip } : {}),
    etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`,
  };
};

/**
 * Every file of a built console, read into memory (a few hundred KB), or undefined when `dir` holds no
 * index.html (the console was not built).
 */
export const loadConsoleAssets = (dir: string): ConsoleAssets | undefined => {
  const indexPath = path.join(dir, 'index.html');
  if (!fs.existsSync(indexPath)) return undefined;
  const files = new Map<string, ConsoleFile>();
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(name);
      else if (entry.isFile() && !/\.(br|gz)$/.test(entry.name)) {
        const file = fileOf(path.join(dir, name));
        if (file) files.set(name, file);
      }
    }
  };
  walk('');
  const index = files.get('index.html');
  return index ? { index, files } : undefined;
};

type Context = Parameters<Middleware>[0];

/**
 * The encoding to send among those the file has, by the request's Accept-Encoding: brotli where taken
 * (the smaller), else gzip, else none. The server's preference decides between encodings the client
 * takes equally (browsers list gzip first and take both); one it refuses (`q=0`) is never sent.
 */
export const encodingFor = (acceptEncoding: string, available: { readonly br: boolean; readonly gzip: boolean }): 'br' | 'gzip' | undefined => {
  const taken = new Map<string, number>();
  for (const part of acceptEncoding.split(',')) {
    const [name = '', ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    if (name !== '') taken.set(name, q === undefined ? 1 : Number(q));
  }
  const takes = (name: string) => (taken.get(name) ?? taken.get('*') ?? 0) > 0;
  if (available.br && takes('br')) return 'br';
  if (available.gzip && takes('gzip')) return 'gzip';
  return undefined;
};

const send = (ctx: Context, file: ConsoleFile, cacheControl: string): void => {
  ctx.status = 200;
  ctx.set('Cache-Control', cacheControl);
  ctx.vary('Accept-Encoding');
  const encoding = encodingFor(ctx.get('accept-encoding'), { br: file.br !== undefined, gzip: file.gzip !== undefined });
  const body = encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : undefined;
  // Each encoding is other bytes: its own validator (RFC 9110 §8.8.3).
  ctx.etag = body === undefined ? file.etag : `${file.etag.slice(0, -1)}-${encoding}"`;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  ctx.type = file.type;
  if (encoding !== undefined) ctx.set('Content-Encoding', encoding);
  ctx.body = body ?? file.identity;
};

/**
 * Serves the console under /console (and sends `/` there), answering nothing else: any other path goes
 * on to the API's routes after one string comparison. A file of the build is answered as it is; any
 * other path under /console that does not name a file (the app's own pages: /console/projects/…) gets
 * index.html, whose script routes it. A missing hashed asset is a 404, not the page.
 */
export const consoleMiddleware = (assets: ConsoleAssets | undefined): Middleware => {
  const prefix = `${CONSOLE_PATH}/`;
  return async (ctx, next) => {
    const p = ctx.path;
    const home = p === '/';
    if (!home && p !== CONSOLE_PATH && !p.startsWith(prefix)) return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      // `/` is no page of the API: only its GET is the console's.
      if (home) return next();
      ctx.status = 405;
      ctx.set('Allow', 'GET, HEAD');
      ctx.body = { detail: 'Method Not Allowed' };
      return undefined;
    }
    if (assets === undefined) {
      if (home) return next();
      ctx.status = 404;
      ctx.body = { detail: 'The console was not built with this server: run `pnpm build`' };
      return undefined;
    }
    if (home || p === CONSOLE_PATH) {
      ctx.status = 302;
      ctx.redirect(prefix);
      return undefined;
    }
    const relative = p.slice(prefix.length);
    const file = assets.files.get(relative);
    if (file !== undefined && relative !== 'index.html') return send(ctx, file, relative.startsWith('assets/') ? IMMUTABLE : REVALIDATE);
    // A file name that is not in the build (an asset of an earlier one): not the page, which would be
    // read as a script or a style and fail in a way that hides why.
    if (relative.startsWith('assets/') || /\.[A-Za-z0-9]{1,8}$/.test(relative)) {
      ctx.status = 404;
      ctx.body = { detail: 'Not Found' };
      return undefined;
    }
    ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    ctx.set('Referrer-Policy', 'no-referrer');
    return send(ctx, assets.index, REVALIDATE);
  };
};
