// What an upload is told when its scorer file cannot score: a 422 on the file, naming the line where
// there is one (the sandbox's failure, or the contract's refusal of a hook).
import { type CodeRefusal, type DomainError, invalid, unavailable } from '@tracelight/domain';
import type { SandboxFailure } from '@tracelight/ports';

/** The text of a line of the file (1-based), cut to a length a message can echo. */
const lineOf = (code: string, line: number): string | undefined => {
  const text = code.split('\n')[line - 1];
  return text === undefined ? undefined : text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

/** A refusal as the 422's entry at `file`: `line N: …`, with that line's text as the input. */
export const fileRefusal = (refusal: CodeRefusal, code: string): DomainError => {
  if (refusal.line === null) return invalid(['file'], refusal.message);
  return invalid(['file'], `line ${refusal.line}: ${refusal.message}`, lineOf(code, refusal.line));
};

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export const uploadRefusal = (failure: SandboxFailure, code: string): DomainError => {
  switch (failure.kind) {
    case 'syntax':
      return fileRefusal({ message: failure.message, line: failure.line }, code);
    case 'exception':
      return fileRefusal({ message: `${failure.message} (raised as the file was read)`, line: failure.line }, code);
    case 'timeout':
      return fileRefusal({ message: `the file did not finish loading within ${seconds(failure.limitMs)}`, line: null }, code);
    case 'memory':
      return fileRefusal({ message: 'the file ran out of memory as it loaded', line: null }, code);
    case 'unavailable':
      return unavailable(`the scorer sandbox could not read the file: ${failure.message}`);
  }
};
