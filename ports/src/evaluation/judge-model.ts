// The model that judges: an OpenAI-compatible chat completion through the user's gateway.
import type { ChatMessage } from '@tracelight/domain';
import type { TaskEither } from 'fp-ts/TaskEither';

/** Where and as whom a judgment is asked: the run owner's gateway integration, its token opened for this call only. */
export interface JudgeGateway {
  /** The gateway's base URL: `POST {endpoint}/chat/completions`. */
  readonly endpoint: string;
  /** Sent as `Authorization: Bearer <token>`; never logged, stored or put in an error. */
  readonly token: string;
  /** Which gateway (its owner), for the per-gateway bound on calls in flight. */
  readonly key: string;
}

export interface JudgeRequest {
  readonly gateway: JudgeGateway;
  readonly model: string;
  readonly messages: ReadonlyArray<ChatMessage>;
  /** Independent answers asked for in one call (OpenAI's `n`): a provider may give fewer. */
  readonly n: number;
  /** The JSON schema the answer must follow, sent as the response format. */
  readonly schema: Readonly<Record<string, unknown>>;
}

export interface JudgeReply {
  /** One text per answer the provider gave (at most `n`; an answer without text is ''). */
  readonly answers: ReadonlyArray<string>;
  readonly usage: { readonly prompt: number; readonly completion: number };
}

/**
 * Why a call failed, in words that hold no secret (the provider's text is scrubbed of the token).
 * `retryable`: a timeout, a network failure, 408, 429 or 5xx, worth another try after `retryAfterMs`
 * when the provider said; `permanent`: what another try would only repeat (401, 404, a bad request);
 * `refused`: the call was not made, the gateway's address being one judges may not call (a private or
 * loopback address the operator did not allow): the gateway's setup must change.
 */
export type JudgeFailure =
  | { readonly kind: 'retryable'; readonly message: string; readonly retryAfterMs?: number }
  | { readonly kind: 'permanent'; readonly message: string }
  | { readonly kind: 'refused'; readonly message: string };

export interface JudgeModel {
  /** One call (no retry of its own: the job is retried, durably, by the queue), within the adapter's timeout and per-gateway bound. */
  complete(request: JudgeRequest): TaskEither<JudgeFailure, JudgeReply>;
}
export const JudgeModel = Symbol.for('tracelight.JudgeModel');
