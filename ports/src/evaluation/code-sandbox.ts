// Where uploaded scorer code runs: an interpreter isolated from the host, the network and other users.
import type { CodeInspection, ScorerArguments, ScorerReturn } from '@tracelight/domain';
import type { TaskEither } from 'fp-ts/TaskEither';

/** A scorer file to run, and whose it is. */
export interface CodeSource {
  /**
   * What names this code for as long as it is the same (a version's id): a sandbox may keep the file
   * compiled under it, so that one loaded version serves many records.
   */
  readonly key: string;
  readonly fileName: string;
  readonly code: string;
  /**
   * Whose code it is (the scorer's owner): code of different owners never shares an interpreter, so
   * nothing one leaves behind in it reaches another's.
   */
  readonly tenant: string;
}

/**
 * Why a call gave no answer. `syntax`: the file does not compile (the line, when Python names one);
 * `exception`: the code raised (its traceback's last lines, and the line in the file where it was
 * raised); `timeout`: it ran past the time limit and its interpreter was ended; `memory`: it ran out of
 * its memory and its interpreter was ended; `unavailable`: the sandbox could not run it now (an
 * interpreter failed to start): worth another try later.
 */
export type SandboxFailure =
  | { readonly kind: 'syntax'; readonly message: string; readonly line: number | null }
  | { readonly kind: 'exception'; readonly message: string; readonly traceback: string; readonly line: number | null }
  | { readonly kind: 'timeout'; readonly limitMs: number }
  | { readonly kind: 'memory'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly message: string };

export interface CodeSandbox {
  /**
   * Compiles the file and runs its top level (defining its functions), then reads its hooks as the file
   * gives them: what `scorer_fn` is, what `score_type()` and `scoreable_node_types_fn()` return, and
   * `chain_aggregation`. The domain checks them against the contract (profileOf).
   */
  inspect(source: CodeSource): TaskEither<SandboxFailure, CodeInspection>;
  /**
   * Calls `scorer_fn(**args)` of the file, in a module of its own (nothing a call leaves in the file's
   * globals reaches the next call), and says what it returned.
   */
  score(source: CodeSource, args: ScorerArguments): TaskEither<SandboxFailure, ScorerReturn>;
  /** Ends the interpreters (a process that stops). */
  close(): Promise<void>;
}
export const CodeSandbox = Symbol.for('tracelight.CodeSandbox');
