// The code runner: a version's uploaded scorer_fn called in the sandbox on one record, its return
// checked against the version's score type. What the record hands it and what is stored are the domain's.
import { NO_TOKENS, codeScoredInfo, lastLinesOf, scoreTypeOf, scoredValue, scorerArguments } from '@tracelight/domain';
import type { CodeSandbox } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import type { RunnerVerdict, ScorerRunner, ScoringContext } from './scorer-runner';

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`;

export class CodeScorerRunner implements ScorerRunner {
  constructor(private readonly deps: { readonly sandbox: CodeSandbox }) {}

  async score({ job, record, scorer, version }: ScoringContext): Promise<RunnerVerdict> {
    const file = version.registeredScorer;
    if (file === null) return { kind: 'outcome', state: 'error', message: `scorer version ${version.version} has no code`, tokens: NO_TOKENS };
    // The version's id names its code for good (versions never change): one compiled file serves every record.
    const source = { key: version.id, fileName: file.fileName, code: file.code, tenant: job.ownerId };
    const ran = await this.deps.sandbox.score(source, scorerArguments(record))();
    if (E.isLeft(ran)) {
      const f = ran.left;
      switch (f.kind) {
        case 'unavailable':
          return { kind: 'retry', message: f.message, tokens: NO_TOKENS };
        case 'exception':
          return { kind: 'outcome', state: 'error', message: lastLinesOf(f.traceback === '' ? f.message : f.traceback), tokens: NO_TOKENS };
        case 'syntax':
          return { kind: 'outcome', state: 'error', message: lastLinesOf(`line ${f.line ?? '?'}: ${f.message}`), tokens: NO_TOKENS };
        case 'timeout':
          return { kind: 'outcome', state: 'error', message: `scorer_fn ran past the time limit of ${seconds(f.limitMs)} and was stopped`, tokens: NO_TOKENS };
        case 'memory':
          return { kind: 'outcome', state: 'error', message: `scorer_fn ran out of memory and was stopped: ${f.message}`, tokens: NO_TOKENS };
      }
    }
    const value = scoredValue(scoreTypeOf(version), ran.right);
    if (E.isLeft(value)) return { kind: 'outcome', state: 'error', message: value.left, tokens: NO_TOKENS };
    return { kind: 'success', info: codeScoredInfo(version, value.right, scorer.display.threshold), tokens: NO_TOKENS };
  }
}
