// Integrations with model providers. Secrets are held sealed; the domain never sees them in clear.
import type { IntegrationId, UserId } from '../shared/ids';

/** `custom`, `gateway`, then the ten model providers in alphabetical order of their names. */
export const PROVIDERS = [
  'custom',
  'gateway',
  'anthropic',
  'aws_bedrock',
  'aws_sagemaker',
  'azure',
  'databricks',
  'mistral',
  'nvidia',
  'openai',
  'vertex_ai',
  'writer',
] as const;
export type Provider = (typeof PROVIDERS)[number];

export interface Integration {
  readonly id: IntegrationId;
  readonly provider: Provider;
  readonly name: string;
  readonly createdBy: UserId;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** Non-secret settings, such as a gateway's endpoint and use case. */
  readonly settings: Readonly<Record<string, string>>;
  /** The provider secret, sealed by the SecretSealer port (authenticated encryption). */
  readonly sealedSecret: string;
  readonly permissions: ReadonlyArray<never>;
  readonly isSelected: boolean;
  readonly isDisabled: boolean;
}

export interface GatewayIntegrationInput {
  readonly token: string;
  readonly endpoint: string;
  readonly useCase: string;
}

export const USE_CASE = /^[A-Z][A-Z0-9_]*$/;

/**
 * A gateway token: sent on as a credential, an HTTP header's value, so what a field value can carry as
 * text (RFC 9110 §5.5): visible ASCII, with spaces or tabs only between them (a header's ends are
 * trimmed). No control character (a CR or LF could not be sent), nothing beyond ASCII (a header carries
 * bytes, read as Latin-1, not UTF-8), not blank.
 */
export const GATEWAY_TOKEN = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/;
export const MAX_GATEWAY_TOKEN_LENGTH = 8192;
