// The start-up refusals an operator fixes: storage without room, a path this process may not use.
/**
 * Thrown by an adapter (or an app's start-up step) that cannot start for a reason of the machine, not
 * of the code: a directory it may not write, a file in the way. Its message says what was not done and
 * how to fix it, so an app reports it in those words alone, with no stack trace. Here, in the ports,
 * so that every adapter throws the one class and the apps recognise it with `instanceof` (no adapter
 * imports another).
 */
export class CannotStart extends Error {
  override readonly name: string = 'CannotStart';
}

/** A CannotStart for want of room: a disk, a database quota without room for what starting needs. */
export class NoRoomToStart extends CannotStart {
  override readonly name = 'NoRoomToStart';
}
