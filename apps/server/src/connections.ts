// Knows the open connections and, through Node's own record of the answer each is writing, which carry a
// request: so that a stopping server can close the connections that wait on their clients rather than
// on it, and an answer no one reads (written in full, or streamed) is dropped. Tracked per connection,
// not per request: a request costs nothing here.
import type { HttpLogger } from '@tracelight/http-koa';
import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, type Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The answer a connection is writing, or the first one waiting to be (pipelined requests queue behind
 * it); none between requests. Node keeps it as `_httpMessage`, which its own HTTP server relies on, and
 * lets it go once the answer has left in full (its `finish`): an answer still being flushed to a slow
 * client is still there.
 */
export const answerOf = (socket: Socket): ServerResponse | null => (socket as { _httpMessage?: ServerResponse | null })._httpMessage ?? null;

/**
 * Bytes of the connection's answer that libuv has yet to hand to the kernel: one large write (a whole
 * answer's body) shrinks here as its client reads, in steps as the kernel's buffers for the connection
 * make room, where `writableLength` holds the whole write until it is done. The figure Node's own socket
 * timeout compares (`handle.writeQueueSize`).
 */
const notYetSent = (socket: Socket): number => (socket as { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0;

/**
 * The server's answers, made to say `Connection: close` once the server stops: each answer whose head is
 * written from then on, whenever its request came (one still being received or worked on when the
 * signal came included), so that its client does not send the next request on a connection about to
 * close. An answer whose head had already left keeps what it said (HTTP has no way to take it back);
 * its connection is closed once the answer is out.
 */
export const closingAnswers = (): { readonly Response: typeof ServerResponse<IncomingMessage>; readonly close: () => void } => {
  let closing = false;
  class Response extends ServerResponse {
    // Node writes every head through here: `end` or `write` without one (Koa's way) calls `writeHead`.
    override writeHead(statusCode: number, ...rest: Array<string | OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined>): this {
      if (closing && !this.headersSent) this.setHeader('Connection', 'close');
      return (super.writeHead as (statusCode: number, ...rest: unknown[]) => this)(statusCode, ...rest);
    }
  }
  return {
    Response,
    close: () => {
      closing = true;
    },
  };
};

/**
 * Whether the connection's answer waits on its client to read it: written in full (ended) and still
 * leaving, or streamed (its head sent, the rest still being written, an export's) with bytes of it
 * queued for the client. A streamed answer with nothing queued waits on the server, which is still
 * making the rest: it is not the client's doing.
 */
const waitsOnItsClient = (socket: Socket, answer: ServerResponse): boolean =>
  answer.writableEnded || (answer.headersSent && (notYetSent(socket) > 0 || socket.writableLength > 0));

/** An answer whose head has left and whose end is still to be written: a stream (an export), read as the client takes it. */
const isStreaming = (answer: ServerResponse): boolean => answer.headersSent && !answer.writableEnded;

export interface ConnectionTimes {
  /**
   * How long an answer may wait on a client that stops reading it (written in full, or streamed with
   * bytes of it queued): past it, with no byte of it having moved for as long, its connection is closed.
   */
  readonly unreadAnswerMs: number;
  /**
   * How often answers are looked at for that. A move is seen up to one look late and the cut comes at a
   * look: less than twice this past `unreadAnswerMs` after the answer's last byte moved.
   */
  readonly checkingMs: number;
}

export class Connections {
  private readonly open = new Set<Socket>();
  /** For each answer that waits on its client (waitsOnItsClient): what was left to send when last seen, and since when. */
  private readonly leaving = new Map<Socket, { notYetSent: number; queued: number; since: number }>();

  constructor(
    server: Server,
    private readonly logger: HttpLogger,
    times: ConnectionTimes,
  ) {
    server.on('connection', (socket: Socket) => {
      this.open.add(socket);
      socket.once('close', () => {
        this.open.delete(socket);
        this.leaving.delete(socket);
      });
    });
    // Node's own, called by `server.close()`, takes for idle a connection whose request has been read
    // and whose answer has been ended (`end()` called) though not sent: it closed answers still leaving
    // for their clients the moment the server began to stop, the database closed behind them. Here
    // only the connections that carry no answer are idle.
    server.closeIdleConnections = () => this.closeIdle();
    // The server's socket timeout: no byte moved for its length (and, between requests, for the
    // keep-alive timeout). With this listener Node leaves the connection to it.
    server.on('timeout', (socket: Socket) => {
      const answer = answerOf(socket);
      // A request still being worked on is left to finish, one still being received to the request timeout,
      // and an answer still streamed to the sweep below (which cuts it once its client stops reading).
      if (answer !== null && !answer.writableEnded) return;
      if (answer !== null) this.dropUnread(socket, answer);
      else socket.destroy();
    });
    // Node's socket timeout gives an answer a client does not read up to twice its length: it counts a
    // write as moving while libuv's queue differs from what it was when last looked at, and it first
    // looks a whole timeout after the write, comparing with the write's full size, which the kernel's
    // share taken at once already makes different. An answer that is not read is cut here instead,
    // once nothing of it has moved for `unreadAnswerMs`, looked at each `checkingMs`; so is a streamed
    // answer (an export), which Node's timeout leaves alone as long as it is not ended.
    setInterval(() => this.dropUnreadAnswers(times.unreadAnswerMs), times.checkingMs).unref();
  }

  /**
   * Closes the connections whose answer, written in full or streamed, has not moved for `afterMs` with
   * bytes of it queued: its client stopped reading, and the answer (a stream's page) would be held in
   * memory for as long as the connection lasts.
   */
  private dropUnreadAnswers(afterMs: number): void {
    const now = Date.now();
    for (const socket of this.open) {
      const answer = answerOf(socket);
      if (answer === null || !waitsOnItsClient(socket, answer)) {
        if (this.leaving.size > 0) this.leaving.delete(socket);
        continue;
      }
      const left = notYetSent(socket);
      const queued = socket.writableLength;
      const seen = this.leaving.get(socket);
      if (seen === undefined || seen.notYetSent !== left || seen.queued !== queued) this.leaving.set(socket, { notYetSent: left, queued, since: now });
      else if (now - seen.since >= afterMs) this.dropUnread(socket, answer);
    }
  }

  private dropUnread(socket: Socket, answer: ServerResponse): void {
    this.logger.info({ request_id: answer.getHeader('x-request-id'), status: answer.statusCode }, 'answer not read by its client: connection closed');
    socket.destroy();
  }

  /**
   * Closes the connections that carry no request: just opened, half-way through sending their headers,
   * or idle between requests. (Node's `closeIdleConnections` leaves the first two open, and a
   * connection that never sends a byte would hold the server's `close` until the forced exit.)
   */
  closeIdle(): void {
    for (const socket of this.open) if (answerOf(socket) === null) socket.destroy();
  }

  /** How many requests are still to be answered: one being worked on per connection (those pipelined behind it are not counted). */
  unanswered(): number {
    let n = 0;
    for (const socket of this.open) {
      const answer = answerOf(socket);
      if (answer !== null && !answer.writableEnded) n++;
    }
    return n;
  }

  /**
   * Closes the connections whose request waits on its client: a body still to come, an answer it does not
   * read, or a streamed answer (an export), which may go on for as long as the run is large and whose
   * client, cut off, sees a transfer that did not end rather than a short answer that looks whole.
   * Returns how many it closed.
   */
  closeWaitingOnClients(): number {
    let closed = 0;
    for (const socket of this.open) {
      const answer = answerOf(socket);
      if (answer !== null && (!answer.req.complete || (answer.writableEnded && !answer.writableFinished) || isStreaming(answer))) {
        socket.destroy();
        closed++;
      }
    }
    return closed;
  }
}
