// A body that is not JSON, in the spec's 422 shape and worded as FastAPI (Python's json module) words
// it. The request thread's body-parser failures and the offload workers' parse failures both go here.
import { jsonInvalid, jsonSyntaxError } from '@tracelight/api-schema';
import type { HttpError } from './domain-error.mapper';

/** Where JSON.parse gave up, when its message says so (V8: "... at position N"). */
const positionIn = (message: string): number => Number(/position (\d+)/.exec(message)?.[1] ?? 0);

/** A member named `__proto__`, however its name is escaped, as @hapi/bourne finds it. */
const PROTO_MEMBER = /"(?:_|\\u005[Ff])(?:_|\\u005[Ff])(?:p|\\u0070)(?:r|\\u0072)(?:o|\\u006[Ff])(?:t|\\u0074)(?:o|\\u006[Ff])(?:_|\\u005[Ff])(?:_|\\u005[Ff])"\s*:/;

export const malformedJson = (text: string, error: unknown): HttpError => {
  const message = error instanceof Error && error.message ? error.message : 'Invalid JSON';
  // V8's message often has no position: the schema package's scanner finds where and why. JSON the
  // scanner takes was refused for a `__proto__` member (prototype poisoning): said so, where it is.
  const why = jsonSyntaxError(text) ?? (/prototype/.test(message)
    ? { position: PROTO_MEMBER.exec(text)?.index ?? 0, error: 'a member named __proto__ is not accepted, at any depth: copied into an object, it would replace its prototype' }
    : { position: positionIn(message), error: message });
  return { status: 422, body: { detail: [jsonInvalid(why.position, why.error)] } };
};
