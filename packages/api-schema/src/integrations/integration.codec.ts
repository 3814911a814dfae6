// Gateway integration (spec operation 3: Create or update gateway integration).
import { PROVIDERS, USE_CASE } from '@tracelight/domain';
import * as t from 'io-ts';
import { DateTimeOut, Enum, HttpUrl, NonEmptyString, Obj, Str } from '../shared/primitives.codec';

/**
 * `PUT /v2/integrations/gateway`: all three required; `endpoint` an absolute http(s) URL;
 * `use_case` an upper-case token `^[A-Z][A-Z0-9_]*$` (`string_pattern_mismatch`, ctx pattern).
 */
export const GatewayIntegrationCreate = Obj('GatewayIntegrationCreate', {
  token: NonEmptyString,
  endpoint: HttpUrl,
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
