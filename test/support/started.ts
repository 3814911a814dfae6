// What a test file started (a server process, an in-process stub), registered until it is stopped: the test
// environment (environment.js) stops whatever is left once the file is done, however its tests ended.
export interface Started {
  /** For the line that says what was left running. */
  readonly name: string;
  stop(): Promise<unknown>;
}

const registry = (): Set<Started> => {
  const g = globalThis as { __tracelightStarted?: Set<Started> };
  g.__tracelightStarted ??= new Set();
  return g.__tracelightStarted;
};

/** Registers `started`; the function returned unregisters it (once it has stopped). */
export const track = (started: Started): (() => void) => {
  registry().add(started);
  return () => registry().delete(started);
};
