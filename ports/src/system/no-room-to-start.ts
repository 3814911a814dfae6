// The start-up refusal an operator fixes: storage (a disk, a database quota) without room for what starting needs.
/**
 * Thrown by an adapter that cannot open or migrate its database, or write a file it needs (the secret
 * key), for want of room. Its message says what was not done and how to fix it, so an app reports it
 * in those words alone, with no stack trace. Here, in the ports, so that every adapter throws the one
 * class and the apps recognise it with `instanceof` (no adapter imports another).
 */
export class NoRoomToStart extends Error {
  override readonly name = 'NoRoomToStart';
}
