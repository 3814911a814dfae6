// The messages between the sandbox pool and its worker threads.

/** What a worker is started with (workerData). */
export interface WorkerSettings {
  /** The most the Python heap (the interpreter's WebAssembly memory) may grow to, in bytes. */
  readonly heapBytes: number;
}

export interface SourceMessage {
  readonly key: string;
  readonly fileName: string;
  readonly code: string;
}

/** What a call asks: to inspect a file, or to score one record (its arguments as JSON text). */
export type CallBody = { readonly op: 'inspect'; readonly source: SourceMessage } | { readonly op: 'score'; readonly source: SourceMessage; readonly args: string };

/** A call: the worker answers each with an `answer` of the same id, one call at a time. */
export type CallMessage = CallBody & { readonly id: number };

/** From a worker: it is ready for calls (the interpreter started, the sandbox closed), an answer, or the end. */
export type WorkerMessage =
  | { readonly type: 'ready'; readonly startMs: number }
  | { readonly type: 'answer'; readonly id: number; readonly json: string }
  /** The interpreter cannot go on (Pyodide's fatal error, a failed start): the worker ends after this. */
  | { readonly type: 'fatal'; readonly message: string };
