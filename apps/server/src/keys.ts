// The master key this process uses (TRACELIGHT_SECRET_KEY, or secret.key in the data dir, made on a first
// start) and the one a rotation replaces, with their ids: read, or refused in words, before anything else
// is started, so that a start refused for its keys leaves nothing behind (no database begun meanwhile).
import { keyId, loadOrCreateSecretKey, parseSecretKey, sameKeysProblem } from '@tracelight/credentials';
import { CannotStart } from '@tracelight/ports';
import type { ServerConfig } from './config';

export interface Keys {
  readonly secretKey: ReturnType<typeof loadOrCreateSecretKey>;
  readonly previousSecretKey?: ReturnType<typeof parseSecretKey>;
  /** Which keys this process uses, by their ids (keyId): told at start, so that an operator sees every process (and the admin CLI) has the same. */
  readonly keyIds: { readonly secretKeyId: string; readonly previousSecretKeyId?: string };
}

export const loadKeys = (config: ServerConfig): Keys => {
  const secretKey = loadOrCreateSecretKey({ fromEnv: config.secretKey, dataDir: config.dataDir });
  const previousSecretKey = config.previousSecretKey !== undefined ? parseSecretKey(config.previousSecretKey) : undefined;
  const mistake = sameKeysProblem(secretKey, previousSecretKey);
  if (mistake !== undefined) throw new CannotStart(mistake);
  return {
    secretKey,
    ...(previousSecretKey !== undefined ? { previousSecretKey } : {}),
    keyIds: {
      secretKeyId: keyId(secretKey),
      ...(previousSecretKey !== undefined ? { previousSecretKeyId: keyId(previousSecretKey) } : {}),
    },
  };
};
