// A child process's output read line by line, as the servers and the evaluator write their logs.
import type { Readable } from 'node:stream';

/** Calls `onLine` with each whole line `streams` write (without its line break), each stream on its own. */
export const eachLine = (streams: ReadonlyArray<Readable | null | undefined>, onLine: (line: string) => void): void => {
  for (const stream of streams) {
    let buffer = '';
    stream?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      lines.forEach((line) => onLine(line));
    });
  }
};
