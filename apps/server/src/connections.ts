// Knows which requests each open connection is being answered for, so that a stopping server can close
// the connections that wait on their clients rather than on it, and an answer no one reads is dropped.
import type { HttpLogger } from '@tracelight/http-koa';
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export class Connections {
  private readonly answering = new Map<Socket, Set<ServerResponse>>();

  constructor(server: Server, logger: HttpLogger) {
    server.on('connection', (socket: Socket) => {
      this.answering.set(socket, new Set());
      socket.once('close', () => this.answering.delete(socket));
    });
    server.prependListener('request', (req, res) => {
      const responses = this.answering.get(req.socket);
      if (responses === undefined) return;
      responses.add(res);
      res.once('close', () => responses.delete(res));
      // The server's socket timeout: an answer written in full but not taken by its client (which stopped
      // reading) would be held in memory for as long as the connection lasts. A request still being
      // worked on is left to finish, and one still being received to the request timeout.
      res.on('timeout', () => {
        if (!res.writableEnded) return;
        logger.info({ request_id: res.getHeader('x-request-id'), status: res.statusCode }, 'answer not read by its client: connection closed');
        res.destroy();
      });
    });
  }

  /**
   * Closes the connections that carry no request: just opened, half-way through sending their headers,
   * or idle between requests. (Node's `closeIdleConnections` leaves the first two open, and a
   * connection that never sends a byte would hold the server's `close` until the forced exit.)
   */
  closeIdle(): void {
    for (const [socket, responses] of this.answering) if (responses.size === 0) socket.destroy();
  }

  /** Closes the connections whose request waits on its client: a body still to come, or an answer it does not read. */
  closeWaitingOnClients(): void {
    for (const [socket, responses] of this.answering) {
      for (const res of responses) {
        if (!res.req.complete || (res.writableEnded && !res.writableFinished)) {
          socket.destroy();
          break;
        }
      }
    }
  }
}
