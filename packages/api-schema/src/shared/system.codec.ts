// The probes' answers.
import * as t from 'io-ts';

/** `GET /healthcheck`: the process answers. */
export const HealthResponse = t.type({ api_version: t.string, message: t.string }, 'HealthResponse');
/** `GET /readyz`: the database answers. */
export const ReadyResponse = t.type({ status: t.literal('ready') }, 'ReadyResponse');
