// The composition root: configuration → inversify container. Choosing the storage engine is one switch here.
import { credentialsModule, loadOrCreateSecretKey } from '@tracelight/credentials';
import { type HttpLogger, HttpMetrics, RouteOffload, httpModule } from '@tracelight/http-koa';
import { REPOSITORY_TOKENS } from '@tracelight/ports';
import { MongoDatabase, MongoDatabaseToken, mongodbModule } from '@tracelight/mongodb';
import { SqliteStorage, SqliteStorageToken, sqliteModule } from '@tracelight/sqlite';
import { Container } from 'inversify';
import type { ServerConfig } from './config';
import { OffloadPool } from './offload-pool';
import { useCasesModule } from './use-cases.module';

/** What must run before the container's ports are used: the storage, then the offload workers. */
export interface Storage {
  /** Connects and migrates, then starts the offload workers (which open the storage themselves). */
  open(): Promise<void>;
  /** Lets the offload workers finish, then closes the storage. */
  close(): Promise<void>;
}

export const buildContainer = (config: ServerConfig, logger: HttpLogger): { container: Container; storage: Storage } => {
  const container = new Container();
  const metrics = new HttpMetrics();
  // Every repository, whichever engine provides it, is timed into /metrics.
  for (const [name, token] of Object.entries(REPOSITORY_TOKENS)) {
    container.onActivation(token, (_context, repository: object) => metrics.instrument(name, repository));
  }
  const secretKey = loadOrCreateSecretKey({ fromEnv: config.secretKey, dataDir: config.dataDir });
  container.loadSync(
    credentialsModule({
      secretKey,
      tokenTtlSeconds: config.tokenTtlSeconds,
      refreshTokenTtlSeconds: config.refreshTokenTtlSeconds,
      passwordCacheTtlSeconds: config.passwordCacheTtlSeconds,
    }),
    config.database.engine === 'sqlite'
      ? sqliteModule({ path: config.database.path, synchronous: config.sqliteSynchronous, writer: config.sqliteWriter })
      : mongodbModule({ url: config.database.url }),
    useCasesModule({ maxRecordsPerRequest: config.maxRecordsPerRequest, credentialCacheMs: config.credentialCacheMs }),
    httpModule({ bodyLimitBytes: config.bodyLimitBytes, uploadLimitBytes: config.uploadLimitBytes, rateLimitPerMinute: config.rateLimitPerMinute }, logger, metrics),
  );
  const engine: Storage =
    config.database.engine === 'sqlite'
      ? {
          open: () => container.get<SqliteStorage>(SqliteStorageToken).open(),
          close: () => container.get<SqliteStorage>(SqliteStorageToken).close(),
        }
      : {
          open: () => container.get<MongoDatabase>(MongoDatabaseToken).connect(),
          close: () => container.get<MongoDatabase>(MongoDatabaseToken).close(),
        };
  const pool = config.offloadWorkers > 0 ? new OffloadPool(config, config.offloadMinBytes, config.offloadWorkers) : undefined;
  if (pool) container.bind(RouteOffload).toConstantValue(pool);
  const storage: Storage = {
    open: async () => {
      await engine.open();
      await pool?.start();
    },
    close: async () => {
      await pool?.close();
      await engine.close();
    },
  };
  return { container, storage };
};

