// The messages between the sandbox pool and its processes: one JSON object a line, each way, over a pipe
// of the process's own (its fd 3); what the pool reads is bounded, line by line.

export interface SourceMessage {
  readonly key: string;
  readonly fileName: string;
  readonly code: string;
}

/** What a call asks: to inspect a file, or to score one record (its arguments as JSON text). */
export type CallBody = { readonly op: 'inspect'; readonly source: SourceMessage } | { readonly op: 'score'; readonly source: SourceMessage; readonly args: string };

/**
 * To a process: a call (answered by an `answer` of the same id, one call at a time, then by a `pong` of
 * that id once the process's thread is free again), or a ping (answered by a `pong` as soon as the
 * thread is free: one that is not has code still running).
 */
export type Request = (CallBody & { readonly id: number }) | { readonly op: 'ping'; readonly id: number };

/** From a process: it is ready for calls (the interpreter started and was closed off), an answer, a pong, or its end. */
export type Reply =
  | { readonly type: 'ready'; readonly startMs: number }
  | { readonly type: 'answer'; readonly id: number; readonly body: unknown }
  | { readonly type: 'pong'; readonly id: number }
  /** The interpreter cannot go on (Pyodide's fatal error, a failed start): the process ends after this. */
  | { readonly type: 'fatal'; readonly message: string };

/**
 * The longest line the pool reads from a process. The harness's answers are far shorter (a str value is
 * at most 4 KiB of text, a traceback 8,000 characters); a longer line means a process not playing by the
 * protocol, which is ended.
 */
export const MAX_REPLY_BYTES = 1024 * 1024;

/** Splits a byte stream into lines; past `maxBytes` without a newline, `onOverflow` once and nothing more. */
export class LineReader {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl >= 0; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) return this.overflow();
      this.parts.push(piece);
      const line = Buffer.concat(this.parts).toString('utf8');
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      this.onLine(line);
      if (this.overflowed) return;
    }
    const rest = chunk.subarray(start);
    if (this.size + rest.length > this.maxBytes) return this.overflow();
    if (rest.length > 0) {
      // A copy: the stream may reuse its buffer.
      this.parts.push(Buffer.from(rest));
      this.size += rest.length;
    }
  }

  private overflow(): void {
    this.overflowed = true;
    this.parts = [];
    this.onOverflow();
  }
}
