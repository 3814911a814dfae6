// A body that is not JSON, in the spec's 422 shape and worded as FastAPI (Python's json module) words
// it. The request thread's body-parser failures and the offload workers' parse failures both go here.
import { jsonInvalid, jsonSyntaxError } from '@tracelight/api-schema';
import type { HttpError } from './domain-error.mapper';

/** Where JSON.parse gave up, when its message says so (V8: "... at position N"). */
const positionIn = (message: string): number => Number(/position (\d+)/.exec(message)?.[1] ?? 0);

export const malformedJson = (text: string, error: unknown): HttpError => {
  const message = error instanceof Error && error.message ? error.message : 'Invalid JSON';
  // V8's message often has no position: the schema package's scanner finds where and why.
  const why = jsonSyntaxError(text) ?? { position: positionIn(message), error: message };
  return { status: 422, body: { detail: [jsonInvalid(why.position, why.error)] } };
};
