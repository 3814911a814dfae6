// The composition root: configuration → inversify container. Choosing the storage engine is one switch here.
import { credentialsModule, loadOrCreateSecretKey } from '@tracelight/credentials';
import { type HttpLogger, HttpMetrics, httpModule } from '@tracelight/http-koa';
import { REPOSITORY_TOKENS } from '@tracelight/ports';
import { MongoDatabase, MongoDatabaseToken, mongodbModule } from '@tracelight/mongodb';
import { SqliteStorage, SqliteStorageToken, sqliteModule } from '@tracelight/sqlite';
import { Container } from 'inversify';
import type { ServerConfig } from './config';
import { useCasesModule } from './use-cases.module';

export interface Storage {
  /** Connects and migrates; a no-op for engines that did so when constructed. */
  open(): Promise<void>;
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
    useCasesModule({ maxRecordsPerRequest: config.maxRecordsPerRequest }),
    httpModule({ bodyLimit: config.bodyLimit, uploadLimitBytes: config.uploadLimitBytes, rateLimitPerMinute: config.rateLimitPerMinute }, logger, metrics),
  );
  const storage: Storage =
    config.database.engine === 'sqlite'
      ? {
          open: () => container.get<SqliteStorage>(SqliteStorageToken).open(),
          close: () => container.get<SqliteStorage>(SqliteStorageToken).close(),
        }
      : {
          open: () => container.get<MongoDatabase>(MongoDatabaseToken).connect(),
          close: () => container.get<MongoDatabase>(MongoDatabaseToken).close(),
        };
  return { container, storage };
};

