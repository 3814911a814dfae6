// Requests Node refuses before the application sees them (a request line or headers it cannot parse, headers
// too large, a request too slow, CONNECT): answered with Node's status, with a JSON body saying why as every
// other refusal of the API does (Node's has none), and logged and counted, which Node does not.
// And connections past the most the server keeps open: closed unanswered, counted, and logged now and then.
import { answeredOnConnection, type HttpLogger, type HttpMetrics, requestIdOf } from '@tracelight/http-koa';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import * as fs from 'node:fs';
import type { Socket } from 'node:net';
import { answerOf } from './connections';

/** Descriptors kept for what is not a client connection: the database files, logs, worker threads. */
const RESERVED_DESCRIPTORS = 256;

/**
 * The default of TRACELIGHT_MAX_CONNECTIONS: this process's open-file limit (the soft one, `ulimit -n`)
 * less what the rest of the process needs; 10,000 where the limit cannot be read (not Linux).
 */
export const defaultMaxConnections = (): number => {
  try {
    const soft = /^Max open files\s+(\d+)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'))?.[1];
    if (soft !== undefined) return Math.max(16, Number(soft) - RESERVED_DESCRIPTORS);
  } catch {
    /* not Linux */
  }
  return 10_000;
};

/** While connections are being dropped, one line at most this often, saying how many. */
const DROP_LOG_EVERY_MS = 10_000;

export const limitConnections = (server: Server, maxConnections: number, logger: HttpLogger, metrics: HttpMetrics): void => {
  server.maxConnections = maxConnections;
  let dropped = 0;
  let loggedAt = 0;
  // Node closes the connection itself; it says so with this event (and nothing else).
  server.on('drop', () => {
    metrics.dropped.inc();
    dropped++;
    const now = Date.now();
    if (now - loggedAt < DROP_LOG_EVERY_MS) return;
    logger.info({ max_connections: maxConnections, dropped }, 'connections dropped: the most the server keeps open are open');
    loggedAt = now;
    dropped = 0;
  });
};

/** What Node's default `clientError` handler answers for each parser error. */
const statusOf = (code: unknown): number => {
  if (code === 'HPE_HEADER_OVERFLOW' || code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
};

/** Why, in words, as every other answer of the API says it: `{"detail": "…"}`. */
const detailOf = (status: number, code: unknown): string => {
  if (status === 431) return 'Request headers too large: the request line and headers together may be at most 16 KiB';
  if (status === 408) return 'Request timeout: the request did not arrive in time';
  if (status === 405) return 'CONNECT is not served: this server is no proxy';
  return `Bad request: not a request HTTP/1.1 can read${typeof code === 'string' && /^HPE_[A-Z_]+$/.test(code) ? ` (${code})` : ''}`;
};

/** The status line, the request's id, and a JSON body saying why, on a connection then closed. */
const refusal = (status: number, requestId: string, code?: unknown): string => {
  const body = JSON.stringify({ detail: detailOf(status, code) });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`;
};

/**
 * The `X-Request-Id` of a request Node could not parse, read from what it had of it (the parser's
 * `rawPacket`), when that is there and a plain token; else none. The request's id is then made up.
 */
const givenRequestId = (e: NodeJS.ErrnoException & { rawPacket?: unknown }): string | undefined => {
  if (!Buffer.isBuffer(e.rawPacket)) return undefined;
  const head = e.rawPacket.subarray(0, 16 * 1024).toString('latin1');
  return /\r\nx-request-id:[ \t]*([^\r\n]*?)[ \t]*\r\n/i.exec(head)?.[1];
};

export const answerRefusals = (server: Server, logger: HttpLogger, metrics: HttpMetrics): void => {
  /** Connections refused, or whose refusal waits for the answers before it. */
  const refusing = new WeakSet<Socket>();
  server.on('clientError', (e: NodeJS.ErrnoException, socket: Socket) => {
    // A connection reset or broken by its client has no one to answer, and is not a refusal.
    if (e.code === 'ECONNRESET' || e.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    // Node's parser, once failed, fails again on whatever else the client sends meanwhile: one refusal a connection.
    if (refusing.has(socket)) return;
    refusing.add(socket);
    refuseAfterAnswers(e, socket, statusOf(e.code));
  });
  // Node closes a CONNECT's connection without a word; this server is no proxy, and says so.
  server.on('connect', (req: IncomingMessage, socket: Socket) => {
    const requestId = requestIdOf(req.headers['x-request-id'] as string | undefined);
    metrics.refused.inc({ status: '405' });
    logger.info({ request_id: requestId, status: 405, method: 'CONNECT' }, 'request refused before it was read');
    socket.write(refusal(405, requestId));
    socket.destroy();
  });

  /**
   * The requests Node read whole before the one it cannot read (pipelined behind them) are answered first,
   * each as it was handled, in their order: Node hands the connection to the next answer as each finishes.
   * Then the refusal, and the connection closes. A request Node cut off (its body too slow: 408; its chunks
   * malformed) is the one refused. A connection gone meanwhile has no one to answer: no refusal.
   * `behind`: requests were answered before it, whose bytes (and X-Request-Id) Node's error holds too.
   */
  const refuseAfterAnswers = (e: NodeJS.ErrnoException, socket: Socket, status: number, behind = false): void => {
    if (socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    const answer = answerOf(socket);
    if (answer !== null && answer.req.complete && !answer.writableFinished) {
      socket.pause();
      let waited = false;
      const next = (): void => {
        if (waited) return;
        waited = true;
        refuseAfterAnswers(e, socket, status, true);
      };
      answer.once('finish', next).once('close', next);
      return;
    }
    refuse(e, socket, status, answer !== null && !answer.req.complete ? answer : null, behind);
  };

  /** Answers (where no answer has begun on the connection) and closes; `answer` is the request Node cut off, if it had reached the application. */
  const refuse = (e: NodeJS.ErrnoException, socket: Socket, status: number, answer: ServerResponse | null, behind = false): void => {
    // A request already handed to the application (its body too slow: 408) has its own line and count, which
    // say it was answered this, and its id; one that never reached it has only these, and an id of its own
    // (the caller's, read from what Node had of it, unless requests answered before it hold the first one there).
    const given = answer?.getHeader('x-request-id');
    const requestId = typeof given === 'string' ? given : requestIdOf(behind ? undefined : givenRequestId(e));
    if (answer === null) {
      metrics.refused.inc({ status: String(status) });
      logger.info({ request_id: requestId, status, error: e.code ?? e.message }, 'request refused before it was read');
    }
    // As Node does: only where no answer has begun on the connection (a request being answered can time out too).
    if (!answer?.headersSent) {
      socket.write(refusal(status, requestId, e.code));
      // Answered by this, not by what the application makes of its cut-off body.
      if (answer !== null) answeredOnConnection(answer, status);
    }
    socket.destroy();
  };
};
