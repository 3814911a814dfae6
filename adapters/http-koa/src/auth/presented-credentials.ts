// Splits the credential schemes out of request headers (the spec's four, the SDKs' API-key aliases, the
// refresh cookie). No verification happens here.
import type { PresentedCredentials } from '@tracelight/domain';

/**
 * API-key headers, in precedence order, with the name of each one's scheme in the OpenAPI document:
 * the spec's two, then the origin SDKs' aliases.
 */
export const API_KEY_SCHEMES = [
  { scheme: 'ClassicAPIKeyHeader', header: 'Service-API-Key' },
  { scheme: 'APIKeyHeader', header: 'Service-AO-API-Key' },
  { scheme: 'GalileoAPIKeyHeader', header: 'Galileo-API-Key' },
  { scheme: 'SplunkAPIKeyHeader', header: 'Splunk-AO-API-Key' },
] as const;

export const API_KEY_HEADERS: ReadonlyArray<string> = API_KEY_SCHEMES.map((s) => s.header.toLowerCase());

/** The HttpOnly cookie sign-in sets, which POST /v2/refresh_token takes in place of a bearer token. */
export const REFRESH_TOKEN_COOKIE = 'refresh_token';

/** A cookie value with its %-escapes undone; as sent when they are malformed (it then verifies as no token does). */
const percentDecoded = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** The refresh token in a `Cookie` header, if there is one. */
export const refreshTokenOf = (cookieHeader: string | undefined): string | undefined => {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === REFRESH_TOKEN_COOKIE && value.length > 0) return percentDecoded(value.join('='));
  }
  return undefined;
};

export type HeaderReader = (name: string) => string | undefined;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** `undefined` when the request carries no credentials at all; `'malformed'` when it carries unusable ones. */
export const presentedCredentials = (header: HeaderReader): PresentedCredentials | 'malformed' | undefined => {
  for (const name of API_KEY_HEADERS) {
    const value = header(name);
    if (value !== undefined && value !== '') return { scheme: 'api_key', apiKey: value.trim() };
  }
  const authorization = header('authorization');
  if (authorization === undefined || authorization.trim() === '') return undefined;
  const [scheme, ...rest] = authorization.trim().split(/\s+/);
  const value = rest.join(' ');
  switch (scheme?.toLowerCase()) {
    case 'bearer':
      if (!value) return 'malformed';
      // A token is a JWT (three dot-separated parts); an API key has no dot. OTLP exporters (Phoenix's
      // register({apiKey}), an OTel Collector's bearertokenauth) send an API key as `Bearer <key>`.
      return value.includes('.') ? { scheme: 'bearer', token: value } : { scheme: 'api_key', apiKey: value };
    case 'basic': {
      const pair = basicPairOf(value);
      return pair === undefined ? 'malformed' : { scheme: 'basic', email: pair.name, password: pair.secret };
    }
    default:
      return 'malformed';
  }
};

/** The two halves of a Basic credential's value, or undefined when it is no `<name>:<secret>` in base64. */
const basicPairOf = (value: string): { readonly name: string; readonly secret: string } | undefined => {
  // Standard base64 (RFC 7617), whole: Node's decoder skips what is not base64 (spaces, `!`) and
  // takes the URL alphabet too, so a credential spelt many ways would all be the same one.
  if (!BASE64.test(value)) return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? { name: decoded.slice(0, colon), secret: decoded.slice(colon + 1) } : undefined;
};

const basicValueOf = (authorization: string | undefined): string | undefined => {
  const m = /^\s*basic\s+(\S+)\s*$/i.exec(authorization ?? '');
  return m?.[1];
};

/**
 * The credentials of a route whose HTTP Basic pair is `<name>:<API key>` (Langfuse's
 * `publicKey:secretKey`): the API key is the credential, the name is not one (basicNameOf). The other
 * schemes read as on any route.
 */
export const presentedApiKeyPair = (header: HeaderReader): PresentedCredentials | 'malformed' | undefined => {
  const value = basicValueOf(header('authorization'));
  if (value === undefined || API_KEY_HEADERS.some((name) => header(name))) return presentedCredentials(header);
  const pair = basicPairOf(value);
  return pair === undefined || pair.secret === '' ? 'malformed' : { scheme: 'api_key', apiKey: pair.secret };
};

/** The name half of a Basic credential (Langfuse's public key), when the Authorization header holds one. */
export const basicNameOf = (authorization: string | undefined): string | undefined => {
  const value = basicValueOf(authorization);
  return value === undefined ? undefined : basicPairOf(value)?.name;
};
