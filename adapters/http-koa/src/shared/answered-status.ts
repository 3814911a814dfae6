// The status a request's client was actually sent. Usually the application's; but when Node's connection
// handling answers a request the application is still reading (408: its body was too slow to arrive), it
// writes its answer straight to the socket, and what the application then sets (the 400 of a body read cut
// off) never leaves. The request's log line and metrics say what did.
import type { ServerResponse } from 'node:http';

const answeredOnItsConnection = new WeakMap<ServerResponse, number>();

/** The request whose answer this is was answered `status` on its connection, by other means than this answer. */
export const answeredOnConnection = (answer: ServerResponse, status: number): void => {
  answeredOnItsConnection.set(answer, status);
};

/**
 * What a request's log line and metrics give as its status when its connection was closed before it was
 * answered (by its client, a body sent in part; or by the server, at the end of a stop's grace): as nginx
 * logs it. The client was sent nothing, so the application's status (the 400 of a body read cut off)
 * would count it among the client's errors.
 */
export const CLIENT_CLOSED_REQUEST = 499;

/**
 * What the client of this answer was sent: the status given on its connection, if any; none
 * (CLIENT_CLOSED_REQUEST) when its connection can no longer be written when the answer is to be (reset
 * by the client, or closed; a connection the client only closed its side of is answered, see
 * answerRefusals); else the
 * answer's own. Called before the answer is written (Koa writes it once the middleware is done).
 */
export const statusSent = (answer: ServerResponse, own: number): number =>
  answeredOnItsConnection.get(answer) ?? (!answer.headersSent && !answer.req.socket.writable ? CLIENT_CLOSED_REQUEST : own);
