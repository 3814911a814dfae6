// What the evaluator reads of the environment: the server's storage and scoring settings (decoded by
// the same code), its secret key, which opens the gateway tokens the server sealed, and where its probes listen.
import { type Env, type ScoringConfig, type StorageConfig, loadScoringConfig, loadStorageConfig } from '@tracelight/config';
import { SECRET_KEY_RULE, isUsableSecretKey } from '@tracelight/credentials';
import * as E from 'fp-ts/Either';

export interface EvaluatorConfig extends StorageConfig, ScoringConfig {
  readonly secretKey: string | undefined;
  readonly previousSecretKey: string | undefined;
  /** TRACELIGHT_CREDENTIAL_CACHE_MS: how long a run's scorers are remembered (as the server remembers them). */
  readonly credentialCacheMs: number;
  /** TRACELIGHT_HOST: the interface /metrics and /healthcheck listen on, by the server's rule. */
  readonly host: string;
  /** TRACELIGHT_EVALUATOR_PORT: their port (0 picks a free one); undefined: no HTTP at all. */
  readonly port: number | undefined;
}

/** The variables the evaluator reads beyond the storage and scoring ones (the server's, in the same words, and its own port). */
export const EVALUATOR_OWN_VARIABLES = ['TRACELIGHT_SECRET_KEY', 'TRACELIGHT_PREVIOUS_SECRET_KEY', 'TRACELIGHT_CREDENTIAL_CACHE_MS', 'TRACELIGHT_HOST', 'TRACELIGHT_EVALUATOR_PORT'] as const;

/** The configuration, or every problem with it. */
export const loadEvaluatorConfig = (env: Env): E.Either<ReadonlyArray<string>, EvaluatorConfig> => {
  const storage = loadStorageConfig(env);
  const scoring = loadScoringConfig(env);
  const secretKey = env['TRACELIGHT_SECRET_KEY'] || undefined;
  const previousSecretKey = env['TRACELIGHT_PREVIOUS_SECRET_KEY'] || undefined;
  const cache = env['TRACELIGHT_CREDENTIAL_CACHE_MS'] || '2000';
  const port = env['TRACELIGHT_EVALUATOR_PORT'] || undefined;
  const problems = [
    ...(E.isLeft(storage) ? storage.left : []),
    ...(E.isLeft(scoring) ? scoring.left : []),
    ...(secretKey !== undefined && !isUsableSecretKey(secretKey) ? [SECRET_KEY_RULE] : []),
    ...(previousSecretKey !== undefined && !isUsableSecretKey(previousSecretKey) ? [SECRET_KEY_RULE.replace('TRACELIGHT_SECRET_KEY', 'TRACELIGHT_PREVIOUS_SECRET_KEY')] : []),
    ...(/^\d+$/.test(cache) && Number(cache) <= 600_000 ? [] : [`TRACELIGHT_CREDENTIAL_CACHE_MS must be a whole number from 0 to 600000, got ${JSON.stringify(cache)}`]),
    ...(port === undefined || (/^\d{1,5}$/.test(port) && Number(port) <= 65_535) ? [] : [`TRACELIGHT_EVALUATOR_PORT must be an integer from 0 to 65535, got ${JSON.stringify(port)}`]),
  ];
  if (E.isLeft(storage) || E.isLeft(scoring) || problems.length > 0) return E.left(problems);
  return E.right({ ...storage.right, ...scoring.right, secretKey, previousSecretKey, credentialCacheMs: Number(cache), host: env['TRACELIGHT_HOST'] || '127.0.0.1', port: port === undefined ? undefined : Number(port) });
};
