// The JudgeModel port over an OpenAI-compatible gateway, with the official `openai` client: baseURL is
// the gateway's endpoint, the API key its token (opened for this call only), one chat completion per
// call, `n` answers, the answer's JSON schema as the response format. Calls in flight are bounded per
// gateway; each has a timeout; retries are the queue's (the client's own are off), so that a wait
// honouring Retry-After holds no worker. Connections go only to addresses the AddressPolicy allows.
import { isRetryableStatus, prefixOf, retryAfterMs, scrubSecret } from '@tracelight/domain';
import type { JudgeFailure, JudgeModel, JudgeReply, JudgeRequest } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import type * as TE from 'fp-ts/TaskEither';
import OpenAI from 'openai';
import { AddressPolicy } from './address-policy';
import { GatewayAddressRefused, type GuardedFetch, type Resolve, guardedFetch } from './guarded-fetch';
import { Semaphore } from './semaphore';

export interface OpenAiGatewayOptions {
  /** Longest a call may take, answer included (then a retryable failure). */
  readonly timeoutMs: number;
  /** Calls in flight at once to one gateway (one user's); more wait their turn. */
  readonly concurrencyPerGateway: number;
  /** Networks judges may call beside public addresses (CIDRs or addresses): none by default. */
  readonly allowedNetworks?: ReadonlyArray<string>;
  /** How host names are resolved (dns.lookup by default; a test's resolver stands for a DNS it controls). */
  readonly resolve?: Resolve;
}
export const OpenAiGatewayOptions = Symbol.for('tracelight.OpenAiGatewayOptions');

/** At most this much of a provider's own words is kept in a failure's message. */
const MAX_PROVIDER_TEXT = 300;

/**
 * `text` without the secret in any form it may be echoed in (scrubSecret), then cut short: what a
 * provider writes back (an error that quotes the Authorization header it refused, a URL with the key)
 * never leaves here with it. Scrubbed before it is cut, so that no cut leaves part of the secret unmatched.
 */
export const scrubbed = (text: string, secret: string): string => {
  const clean = scrubSecret(text, secret);
  return clean.length > MAX_PROVIDER_TEXT ? `${prefixOf(clean, MAX_PROVIDER_TEXT)}…` : clean;
};

/**
 * What of an error answer is told: the provider's own message when its body is JSON with one
 * (`{"error": {"message": …}}`, or `{"error": "…"}`), else only the body's content type. A body of
 * another kind (an HTML page, a proxy's text, a service's JSON that is no error) is never quoted: it is
 * whatever answered at that address, which the endpoint's owner should not be able to read through us.
 */
const providerText = (e: InstanceType<typeof OpenAI.APIError>): string => {
  const error: unknown = e.error;
  const said = typeof error === 'string' ? error : typeof (error as { message?: unknown } | undefined)?.message === 'string' ? (error as { message: string }).message : undefined;
  if (said !== undefined) return `: ${said}`;
  const type = e.headers?.get('content-type')?.split(';')[0]?.trim();
  return ` (body not shown: ${type || 'no content type'})`;
};

/** The first error among `e` and its causes that the policy raised (a refused address), if any. */
const refusedIn = (e: unknown): GatewayAddressRefused | undefined => {
  let at: unknown = e;
  for (let depth = 0; depth < 6 && at !== undefined && at !== null; depth++) {
    if (at instanceof GatewayAddressRefused) return at;
    at = (at as { cause?: unknown }).cause;
  }
  return undefined;
};

const timeoutFailure = (timeoutMs: number): JudgeFailure => ({ kind: 'retryable', message: `the gateway did not answer within ${timeoutMs} ms` });

/** A failed call as the port says it: retryable or not, in words without the token. */
export const failureOf = (e: unknown, token: string, timeoutMs: number, now: Date): JudgeFailure => {
  const refused = refusedIn(e);
  if (refused !== undefined) return { kind: 'refused', message: refused.message };
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
    const message = scrubbed(`the gateway answered ${e.status}${providerText(e)}`, token);
    if (!isRetryableStatus(e.status)) return { kind: 'permanent', message };
    const wait = retryAfterMs(e.headers?.get('retry-after'), e.headers?.get('retry-after-ms'), now);
    return { kind: 'retryable', message, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
  }
  // An answer that is no completion (not JSON, cut short): the gateway's trouble, maybe passing. The
  // parser's words quote the body, so only the kind of failure is told.
  const kind = e instanceof Error ? e.name : typeof e;
  return { kind: 'retryable', message: `the gateway's answer could not be read as a chat completion (${kind})` };
};

export class OpenAiJudgeModel implements JudgeModel {
  /** A bound per gateway; dropped when no call holds or waits for it. */
  private readonly bounds = new Map<string, Semaphore>();

  private readonly transport: GuardedFetch;

  constructor(private readonly options: OpenAiGatewayOptions) {
    this.transport = guardedFetch(new AddressPolicy(options.allowedNetworks ?? []), options.resolve);
  }

  /** Closes the connections kept open to gateways (a process that stops). */
  close(): Promise<void> {
    return this.transport.close();
  }

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
      // Every connection checked against the address policy (guarded-fetch).
      fetch: this.transport.fetch as unknown as NonNullable<ConstructorParameters<typeof OpenAI>[0]>['fetch'],
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
