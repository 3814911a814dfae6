// The JudgeModel port over an OpenAI-compatible gateway, with the official `openai` client: baseURL is
// the gateway's endpoint, the API key its token (opened for this call only), one chat completion per
// call, `n` answers, the answer's JSON schema as the response format. Calls in flight are bounded per
// gateway; each has a timeout; retries are the queue's (the client's own are off), so that a wait
// honouring Retry-After holds no worker.
import { isRetryableStatus, retryAfterMs } from '@tracelight/domain';
import type { JudgeFailure, JudgeModel, JudgeReply, JudgeRequest } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import type * as TE from 'fp-ts/TaskEither';
import OpenAI from 'openai';
import { Semaphore } from './semaphore';

export interface OpenAiGatewayOptions {
  /** Longest a call may take, answer included (then a retryable failure). */
  readonly timeoutMs: number;
  /** Calls in flight at once to one gateway (one user's); more wait their turn. */
  readonly concurrencyPerGateway: number;
}
export const OpenAiGatewayOptions = Symbol.for('tracelight.OpenAiGatewayOptions');

/** At most this much of a provider's own words is kept in a failure's message. */
const MAX_PROVIDER_TEXT = 300;

/**
 * `text` with every appearance of the secret replaced, then cut short: what a provider writes back (an
 * error that quotes the Authorization header it refused, a URL with the key) never leaves here with it.
 */
export const scrubbed = (text: string, secret: string): string => {
  const clean = secret.length > 0 ? text.split(secret).join('[redacted]') : text;
  return clean.length > MAX_PROVIDER_TEXT ? `${clean.slice(0, MAX_PROVIDER_TEXT)}…` : clean;
};

/** The provider's own message of an error answer: its `error.message`, else the SDK's. */
const providerText = (e: InstanceType<typeof OpenAI.APIError>): string => {
  const body = e.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : e.message;
};

const timeoutFailure = (timeoutMs: number): JudgeFailure => ({ kind: 'retryable', message: `the gateway did not answer within ${timeoutMs} ms` });

/** A failed call as the port says it: retryable or not, in words without the token. */
export const failureOf = (e: unknown, token: string, timeoutMs: number, now: Date): JudgeFailure => {
  if (e instanceof OpenAI.APIConnectionTimeoutError) return timeoutFailure(timeoutMs);
  if (e instanceof OpenAI.APIConnectionError) {
    // fetch's TypeError('fetch failed') holds the system's reason (ECONNREFUSED, ENOTFOUND) one level down.
    type Cause = { code?: unknown; message?: unknown; cause?: Cause };
    const cause = (e as { cause?: Cause }).cause;
    const code = [cause?.code, cause?.cause?.code].find((c): c is string => typeof c === 'string');
    const why = code ?? (typeof cause?.message === 'string' && cause.message !== '' ? cause.message : e.message);
    return { kind: 'retryable', message: scrubbed(`could not reach the gateway: ${why}`, token) };
  }
  if (e instanceof OpenAI.APIError && typeof e.status === 'number') {
    const message = scrubbed(`the gateway answered ${e.status}: ${providerText(e)}`, token);
    if (!isRetryableStatus(e.status)) return { kind: 'permanent', message };
    const wait = retryAfterMs(e.headers?.get('retry-after'), e.headers?.get('retry-after-ms'), now);
    return { kind: 'retryable', message, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  // An answer that is no completion (not JSON, cut short): the gateway's trouble, maybe passing.
  const text = e instanceof Error ? e.message : String(e);
  return { kind: 'retryable', message: scrubbed(`the gateway's answer could not be read: ${text}`, token) };
};

export class OpenAiJudgeModel implements JudgeModel {
  /** A bound per gateway; dropped when no call holds or waits for it. */
  private readonly bounds = new Map<string, Semaphore>();

  constructor(private readonly options: OpenAiGatewayOptions) {}

  /** Gateways with calls in flight or waiting, and those calls: for /metrics. */
  held(): { readonly entries: number; readonly size: number } {
    let calls = 0;
    for (const s of this.bounds.values()) calls += s.inUse + s.waiting;
    return { entries: this.bounds.size, size: calls };
  }

  complete(request: JudgeRequest): TE.TaskEither<JudgeFailure, JudgeReply> {
    return async () => {
      const key = `${request.gateway.key} ${request.gateway.endpoint}`;
      let bound = this.bounds.get(key);
      if (bound === undefined) {
        bound = new Semaphore(this.options.concurrencyPerGateway);
        this.bounds.set(key, bound);
      }
      await bound.acquire();
      try {
        return await this.call(request);
      } finally {
        bound.release();
        if (bound.idle) this.bounds.delete(key);
      }
    };
  }

  private async call(request: JudgeRequest): Promise<E.Either<JudgeFailure, JudgeReply>> {
    const token = request.gateway.token;
    // A client per call: the token lives as long as the call, and the SDK reads nothing from the
    // environment (no OPENAI_* variable changes where judges go or what they send).
    const client = new OpenAI({
      apiKey: token,
      baseURL: request.gateway.endpoint,
      organization: null,
      project: null,
      maxRetries: 0,
      // Ours ends the call first (below); the client's is a backstop.
      timeout: this.options.timeoutMs + 1_000,
      logLevel: 'off',
    });
    // The timeout is ours, so that a call ended by it is told from one the network failed, whichever way
    // the fetch underneath reports an abort.
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    try {
      const completion = await client.chat.completions.create(
        {
          model: request.model,
          messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
          n: request.n,
          response_format: { type: 'json_schema', json_schema: { name: 'judgment', schema: { ...request.schema }, strict: false } },
        },
        { signal: controller.signal },
      );
      const choices = Array.isArray(completion.choices) ? completion.choices : [];
      return E.right({
        answers: choices.map((c) => (typeof c?.message?.content === 'string' ? c.message.content : '')),
        usage: { prompt: completion.usage?.prompt_tokens ?? 0, completion: completion.usage?.completion_tokens ?? 0 },
      });
    } catch (e) {
      if (timedOut) return E.left(timeoutFailure(this.options.timeoutMs));
      return E.left(failureOf(e, token, this.options.timeoutMs, new Date()));
    } finally {
      clearTimeout(timer);
    }
  }
}
