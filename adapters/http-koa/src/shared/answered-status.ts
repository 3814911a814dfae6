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

/** What the client of this answer was sent: the status given on its connection, if any, else the answer's own. */
export const statusSent = (answer: ServerResponse, own: number): number => answeredOnItsConnection.get(answer) ?? own;
