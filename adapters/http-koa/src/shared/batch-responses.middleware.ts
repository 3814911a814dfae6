// Answers leave in batches. Koa writes a response as soon as its middleware chain is done, one socket
// write after another as handlers finish, and on a virtual machine each write that wakes an idle
// client costs far more than the bytes it copies. Here every answer finished during one event-loop
// turn is held until that turn's check phase (setImmediate) and then written together with the
// others, back to back. An answer waits at most for the rest of the turn it was finished in.
import type { Next } from 'koa';

export const batchResponses = () => {
  let held: Array<() => void> = [];
  const release = (): void => {
    const batch = held;
    held = [];
    for (const resume of batch) resume();
  };
  return async (_ctx: unknown, next: Next): Promise<void> => {
    // A failure is not held: it goes on to Koa's error handling at once.
    await next();
    await new Promise<void>((resume) => {
      if (held.push(resume) === 1) setImmediate(release);
    });
  };
};
