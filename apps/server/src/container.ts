// The composition root: configuration → inversify container. Choosing the storage engine is one switch here.
import { credentialsModule } from '@tracelight/credentials';
import { type HttpLogger, HttpApp, HttpMetrics, RouteOffload, httpModule } from '@tracelight/http-koa';
import { CodeSandbox, REPOSITORY_TOKENS } from '@tracelight/ports';
import { PyodideSandbox } from '@tracelight/pyodide-sandbox';
import { ScorerUseCases } from '@tracelight/use-cases';
import { Container } from 'inversify';
import type { ServerConfig } from './config';
import { OffloadPool } from './offload-pool';
import * as path from 'node:path';
import { type Engine, loadEngine } from './engine';
import { loadKeys } from './keys';
import { useCasesModule } from './use-cases.module';

/**
 * The built web console, which this server serves at /console. The console is an app of its own: the
 * server ships its built files (a dependency for bundling) and loads none of its code.
 */
const consoleAssetDir = path.join(path.dirname(require.resolve('@tracelight/console/package.json')), 'dist');

/** What must run before the container's ports are used: the storage, then the offload workers. */
export interface Storage {
  /**
   * Connects and migrates; the ports are usable once it resolves. The threads that only take work off
   * the request thread (SQLite's search threads, the offload workers, which open the storage themselves)
   * start behind it, and what they would take waits for them or runs here meanwhile: see `warmed`.
   */
  open(): Promise<void>;
  /** Resolves once the threads `open` left starting are up; rejects with why one could not start (it is tried again). */
  warmed(): Promise<void>;
  /** Lets the offload workers finish, then closes the storage. */
  close(): Promise<void>;
}

/**
 * `metrics`: the registry to time into (an offload worker's, which forwards its storage timings); a new one
 * by default. `loaded`: the storage engine loaded already (loadEngine, maybe started early); else it is loaded here.
 */
export const buildContainer = async (
  config: ServerConfig,
  logger: HttpLogger,
  metrics: HttpMetrics = new HttpMetrics(),
  onJobsQueued?: () => void,
  loaded?: Engine,
): Promise<{ container: Container; storage: Storage; keyIds: { readonly secretKeyId: string; readonly previousSecretKeyId?: string } }> => {
  const engine = loaded ?? (await loadEngine(config));
  const container = new Container();
  // Every repository, whichever engine provides it, is timed into /metrics.
  for (const [name, token] of Object.entries(REPOSITORY_TOKENS)) {
    container.onActivation(token, (_context, repository: object) => metrics.instrument(name, repository));
  }
  const { secretKey, previousSecretKey, keyIds } = loadKeys(config);
  container.loadSync(
    credentialsModule({
      secretKey,
      ...(previousSecretKey !== undefined ? { previousSecretKey } : {}),
      tokenTtlSeconds: config.tokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
      passwordCacheTtlSeconds: config.passwordCacheTtlSeconds,
      passwordCost: config.passwordCost,
    }),
    engine.module,
    useCasesModule({
      maxRecordsPerRequest: config.maxRecordsPerRequest,
      pageBytes: config.pageBytes,
      searchMs: config.searchTimeoutMs,
      credentialCacheMs: config.credentialCacheMs,
      // A session lives as long as the refresh token its sign-in gave, however often it is renewed.
      sessionMaxAgeSeconds: config.refreshTokenTtlSeconds,
      refreshReuseGraceMs: config.refreshReuseGraceMs,
      // An ended session's family is kept as long as its last access tokens live: those of a revoked one stay refused.
      endedFamiliesKeptMs: config.tokenTtlSeconds * 1000,
      ...(onJobsQueued !== undefined ? { onJobsQueued } : {}),
    }),
    httpModule(
      {
        bodyLimitBytes: config.bodyLimitBytes,
        apiBodyLimitBytes: config.apiBodyLimitBytes,
        uploadLimitBytes: config.uploadLimitBytes,
        rateLimitPerMinute: config.rateLimitPerMinute,
        signInFailuresPerMinute: config.signInFailuresPerMinute,
        trustedProxies: config.trustedProxies,
        bodyBudgetBytes: config.bodyBudgetBytes,
        ...(config.metricsToken !== undefined ? { metricsToken: config.metricsToken } : {}),
        ...(config.corsOrigins !== undefined ? { corsOrigins: config.corsOrigins } : {}),
        consoleDir: consoleAssetDir,
      },
      logger,
      metrics,
    ),
  );
  // Code scorers: compiled at upload, run by the scoring workers. Its interpreters start on first use.
  if (config.sandboxWorkers > 0) {
    const counted = metrics.scoring.sandbox();
    const sandbox = new PyodideSandbox(
      { workers: config.sandboxWorkers, timeLimitMs: config.sandboxTimeLimitMs, memoryMb: config.sandboxMemoryMb, idleMs: config.sandboxIdleMs },
      {
        started: counted.started,
        replaced: (reason) => {
          counted.replaced(reason);
          logger.info({ reason }, 'a code scorer interpreter was ended and will be replaced');
        },
      },
    );
    container.bind(CodeSandbox).toConstantValue(sandbox);
    // Entries: interpreters running or starting; size: calls waiting for one.
    metrics.watch('sandbox', () => ({ entries: sandbox.held().workers, size: sandbox.held().waiting }));
  }
  engine.watch?.(container, metrics);
  metrics.watch('request_bodies', () => container.get(HttpApp).bodies?.held() ?? { entries: 0, size: 0 });
  metrics.watch('scorers', () => container.get(ScorerUseCases).held().scorers);
  metrics.watch('scorer_version_pages', () => container.get(ScorerUseCases).held().versionPages);
  const pool =
    config.offloadWorkers > 0
      ? new OffloadPool(config, {
          minBytes: config.offloadMinBytes,
          workers: config.offloadWorkers,
          maxQueueBytes: config.offloadQueueBytes,
          // The storage calls of the requests the workers handle (the largest ingests), timed here too.
          onStorageTiming: (timing) => metrics.observeStorage(timing),
        })
      : undefined;
  if (pool) {
    container.bind(RouteOffload).toConstantValue(pool);
    metrics.watch('offload_queue', () => pool.held());
  }
  let poolStarted: Promise<void> = Promise.resolve();
  const storage: Storage = {
    open: async () => {
      await engine.open(container);
      poolStarted = pool?.start() ?? Promise.resolve();
      // Reported through `warmed`; unawaited meanwhile, a failure must not end the process.
      poolStarted.catch(() => undefined);
    },
    warmed: async () => {
      await Promise.all([engine.warmed(container), poolStarted.catch((e: unknown) => Promise.reject(new Error(`an offload worker could not start: ${e instanceof Error ? e.message : String(e)}`)))]);
    },
    close: async () => {
      await pool?.close();
      await engine.close(container);
    },
  };
  return { container, storage, keyIds };
};

