// The LLM-judge runner: ChainPoll through the run owner's gateway. The prompt, the answers' reading and
// their aggregation are the domain's; this asks the judge model for `num_judges` answers and says what came of it.
import { type JudgeAnswer, type JudgePrompt, type TokenUsage, NO_TOKENS, addTokens, buildJudgePrompt, chainPoll, judgedInfo, parseJudgeAnswer, secretScrubber } from '@tracelight/domain';
import type { JudgeGateway, JudgeModel } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import type { GatewayLookup } from './gateways';
import type { RunnerVerdict, ScorerRunner, ScoringContext } from './scorer-runner';

/** What the runner tells of each judge call: for metrics (latency, outcomes, tokens). */
export interface JudgeObserver {
  called(seconds: number, outcome: 'ok' | 'retryable' | 'permanent' | 'refused' | 'unparseable'): void;
  used(tokens: TokenUsage): void;
}

export interface LlmJudgeDeps {
  readonly judge: JudgeModel;
  readonly gateways: GatewayLookup;
  /** Milliseconds on a clock that only goes forward (Clock.elapsedMs), to time the calls. */
  readonly elapsedMs: () => number;
  readonly observer?: JudgeObserver;
}

export class LlmJudgeRunner implements ScorerRunner {
  constructor(private readonly deps: LlmJudgeDeps) {}

  async score({ job, record, scorer, version }: ScoringContext): Promise<RunnerVerdict> {
    const prompt = buildJudgePrompt(version, record);
    if (E.isLeft(prompt)) return { kind: 'outcome', state: 'error', message: prompt.left, tokens: NO_TOKENS };
    const gateway = await this.deps.gateways.of(job.ownerId);
    if (E.isLeft(gateway))
      return gateway.left.reason === 'unavailable'
        ? { kind: 'retry', message: gateway.left.message, tokens: NO_TOKENS }
        : { kind: 'outcome', state: 'error', message: gateway.left.message, tokens: NO_TOKENS, ownerSetup: true };
    // Whatever leaves this call (a message stored and logged, an answer's explanation or labels) is
    // scrubbed of the token: a provider may echo it encoded, and a model may repeat what it was shown.
    const scrub = secretScrubber(gateway.right.token);
    const verdict = await this.judge(prompt.right, gateway.right, scrub, { scorer, version });
    return verdict.kind === 'success' ? verdict : { ...verdict, message: scrub(verdict.message) };
  }

  private async judge(
    prompt: JudgePrompt,
    gateway: JudgeGateway,
    scrub: (text: string) => string,
    { scorer, version }: Pick<ScoringContext, 'scorer' | 'version'>,
  ): Promise<RunnerVerdict> {
    const config = version.generatedScorer?.scorerConfiguration;
    const judges = Math.max(1, version.numJudges ?? config?.numJudges ?? 1);
    const model = version.modelName ?? config?.modelAlias ?? '';
    const cpt = version.chainPollTemplate ?? version.generatedScorer!.chainPollTemplate;
    const answers: JudgeAnswer[] = [];
    let tokens = NO_TOKENS;
    // One call asks for every judge (`n`); a provider that gives fewer is asked again for the rest, at
    // most once per judge.
    for (let call = 0; call < judges && answers.length < judges; call++) {
      const started = this.deps.elapsedMs();
      const reply = await this.deps.judge.complete({ gateway, model, messages: prompt.messages, n: judges - answers.length, schema: prompt.schema })();
      const seconds = (this.deps.elapsedMs() - started) / 1000;
      if (E.isLeft(reply)) {
        this.deps.observer?.called(seconds, reply.left.kind);
        const f = reply.left;
        switch (f.kind) {
          case 'retryable':
            return { kind: 'retry', message: f.message, ...(f.retryAfterMs !== undefined ? { retryAfterMs: f.retryAfterMs } : {}), tokens };
          case 'permanent':
            return { kind: 'outcome', state: 'failed', message: f.message, tokens };
          case 'refused':
            // The gateway's address is not one judges may call: the owner's setup (or the operator's) must change.
            return { kind: 'outcome', state: 'error', message: f.message, tokens, ownerSetup: true };
        }
      }
      tokens = addTokens(tokens, reply.right.usage);
      this.deps.observer?.used(reply.right.usage);
      for (const text of reply.right.answers.slice(0, judges - answers.length)) {
        // Scrubbed before it is read: its explanation and labels are stored, and a quote of it may be a message.
        const read = parseJudgeAnswer(scrub(text), cpt, prompt.outputType);
        if (E.isLeft(read)) {
          this.deps.observer?.called(seconds, 'unparseable');
          return { kind: 'retry', message: read.left, tokens };
        }
        answers.push(read.right);
      }
      this.deps.observer?.called(seconds, 'ok');
    }
    if (answers.length < judges) return { kind: 'retry', message: `the model gave ${answers.length} of the ${judges} answers asked for`, tokens };
    const result = chainPoll(prompt.outputType, answers);
    return { kind: 'success', info: judgedInfo(version, result, answers, scorer.display.threshold), tokens };
  }
}
