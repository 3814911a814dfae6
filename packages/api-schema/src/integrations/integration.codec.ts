// Gateway integration (spec operation 3: Create or update gateway integration).
import { GATEWAY_TOKEN, MAX_GATEWAY_TOKEN_LENGTH, PROVIDERS, USE_CASE } from '@tracelight/domain';
import * as t from 'io-ts';
import { Checked, DateTimeOut, Enum, HttpUrl, Obj, Str, Utf8Str } from '../shared/primitives.codec';
import { valueErrorInfo } from '../shared/validation-error';

/**
 * The gateway's secret, by the domain's rule (GATEWAY_TOKEN): sent on as a credential, an HTTP header's
 * value, so 1 to 8,192 visible ASCII characters with spaces only between them. Half of a surrogate pair
 * is `string_unicode` first, as for any text: sealed as UTF-8 it would open as U+FFFD, a token silently
 * other than the one sent, which its owner could never see, as it is never returned.
 */
export const GatewayToken = Utf8Str({ min: 1, max: MAX_GATEWAY_TOKEN_LENGTH, pattern: GATEWAY_TOKEN, name: 'GatewayToken' });

const BASE_URL_RULE = 'the endpoint is a base URL (judges call {endpoint}/chat/completions): no query (?) or fragment (#)';

/**
 * The gateway's base URL: an HttpUrl without a query or a fragment (`value_error`). Judges call
 * `{endpoint}/chat/completions`; a `?` in the endpoint would make the rest of that path a query, so that
 * the endpoint's owner chose the whole path called.
 */
export const GatewayEndpoint = Checked(HttpUrl, (u) => (/[?#]/.test(u) ? valueErrorInfo(BASE_URL_RULE) : undefined), 'GatewayEndpoint', BASE_URL_RULE);

/**
 * `PUT /v2/integrations/gateway`: all three required; `token` a GatewayToken; `endpoint` a
 * GatewayEndpoint; `use_case` an upper-case token `^[A-Z][A-Z0-9_]*$` (`string_pattern_mismatch`, ctx pattern).
 */
export const GatewayIntegrationCreate = Obj('GatewayIntegrationCreate', {
  token: GatewayToken,
  endpoint: GatewayEndpoint,
  use_case: Str({ min: 1, max: 128, pattern: USE_CASE, name: 'UseCase' }),
});
export type GatewayIntegrationCreate = t.TypeOf<typeof GatewayIntegrationCreate>;

/** `custom`, `gateway`, then the ten model providers in alphabetical order of their names. */
export const IntegrationProvider = Enum(PROVIDERS, 'IntegrationProvider');

/** The non-secret settings of a gateway integration (the token never leaves the server). */
export const GatewayIntegrationExtra = t.type({ endpoint: t.string, use_case: t.string }, 'GatewayIntegrationExtra');

/** The spec's integration record; `permissions` is always `[]` here, so its elements are left open. */
export const IntegrationRecord = t.type(
  {
    id: t.string,
    name: t.string,
    provider: IntegrationProvider,
    created_at: DateTimeOut,
    updated_at: DateTimeOut,
    created_by: t.string,
    permissions: t.array(t.unknown),
    is_selected: t.boolean,
    is_disabled: t.boolean,
    extra: GatewayIntegrationExtra,
  },
  'IntegrationRecord',
);
