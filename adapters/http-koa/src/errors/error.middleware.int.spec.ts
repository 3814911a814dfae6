// Failures, through the server's own outer middlewares on a real socket: the caller gets a bare
// answer, and the reason is logged once, in the request's own line, with its request id.
import { unavailable } from '@tracelight/domain';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { accessLog } from '../shared/access-log.middleware';
import type { AppContext } from '../shared/context';
import type { HttpLogger } from '../shared/logger';
import { HttpMetrics } from '../shared/metrics';
import { sendError } from '../shared/respond';
import { toHttpError } from './domain-error.mapper';
import { errorMiddleware } from './error.middleware';

type Line = { level: string; message: string; fields: Record<string, unknown> };

/** Requests `path` of an app made of the outer middlewares and `handler`; the answer and the lines logged. */
const through = async (handler: Koa.Middleware, path: string): Promise<{ res: Response; lines: Line[] }> => {
  const lines: Line[] = [];
  const logger: HttpLogger = {
    info: (fields, message) => lines.push({ level: 'info', message, fields }),
    error: (fields, message) => lines.push({ level: 'error', message, fields }),
  };
  const app = new Koa();
  app.use(accessLog(logger, new HttpMetrics()));
  app.use(errorMiddleware);
  app.use(handler);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  try {
    return { res: await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`), lines };
  } finally {
    server.close();
  }
};

describe('an unexpected throw', () => {
  it('answers a bare 500 and logs one error line with the request id, the stack in it', async () => {
    const { res, lines } = await through(() => {
      throw new Error('a bug, with a secret-free message');
    }, '/anything');
    expect([res.status, await res.json()]).toEqual([500, { detail: 'Internal Server Error' }]);
    expect(lines).toEqual([
      {
        level: 'error',
        message: 'request',
        fields: expect.objectContaining({
          request_id: res.headers.get('x-request-id'),
          status: 500,
          error: expect.stringMatching(/^unhandled error: Error: a bug, with a secret-free message\n {4}at /),
        }),
      },
    ]);
  });
});

describe('storage unavailable', () => {
  it('tells the client only that the service is unavailable, and the request line why, at error level', async () => {
    const reason = 'the storage writer cannot start again (unable to open database file); still trying';
    const { res, lines } = await through((ctx) => sendError(ctx as unknown as AppContext, toHttpError(unavailable(reason))), '/readyz');
    expect([res.status, await res.json()]).toEqual([503, { detail: 'Service temporarily unavailable' }]);
    expect(lines).toEqual([
      { level: 'error', message: 'request', fields: expect.objectContaining({ request_id: res.headers.get('x-request-id'), status: 503, error: `unavailable: ${reason}` }) },
    ]);
  });
});
