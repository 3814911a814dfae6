// JSON bodies parsed as koa-bodyparser (co-body) parses them, where this adapter reads the bytes itself
// (offload workers; bodies of no known size): prototype poisoning refused, an empty body is none.
import * as bourne from '@hapi/bourne';
import type { HttpError } from '../errors/domain-error.mapper';
import { malformedJson } from '../errors/malformed-json';

export const parseJsonBody = (text: string): { ok: true; value: unknown } | { ok: false; error: HttpError } => {
  if (text === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: bourne.parse(text, { protoAction: 'error' }) as unknown };
  } catch (e) {
    return { ok: false, error: malformedJson(text, e) };
  }
};
