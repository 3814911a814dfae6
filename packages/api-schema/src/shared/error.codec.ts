// Error bodies: `{detail: "…"}` for every error but validation, and the 422 HTTPValidationError.
import * as t from 'io-ts';
import { IntegerOut } from './primitives.codec';

/** Any non-422 error (401, 404, 409, 413, 415, 429, 500…): a sentence in `detail`. */
export const ErrorResponse = t.type({ detail: t.string }, 'ErrorResponse');

/** The spec's ValidationError, as a codec (the TypeScript type is `ValidationError`). */
export const ValidationErrorCodec = t.intersection(
  [
    t.type({ loc: t.array(t.union([t.string, IntegerOut])), msg: t.string, type: t.string }),
    t.partial({ input: t.unknown, ctx: t.record(t.string, t.unknown) }),
  ],
  'ValidationError',
);

/** The spec's HTTPValidationError, as a codec (the TypeScript type is `HTTPValidationError`). */
export const HTTPValidationErrorCodec = t.type({ detail: t.array(ValidationErrorCodec) }, 'HTTPValidationError');
