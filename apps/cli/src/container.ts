// The CLI's own composition root: the same domain, ports and storage adapters as the server, no HTTP.
import { credentialsModule, loadOrCreateSecretKey } from '@tracelight/credentials';
import type { MongoDatabase } from '@tracelight/mongodb';
import {
  ApiKeyMinter,
  ApiKeyRepository,
  Clock,
  IdGenerator,
  PasswordHasher,
  REPOSITORY_TOKENS,
  type Repositories,
  TokenSigner,
  UserRepository,
} from '@tracelight/ports';
import type { SqliteStorage } from '@tracelight/sqlite';
import { IdentityUseCases } from '@tracelight/use-cases';
import { Container } from 'inversify';
import * as path from 'node:path';

export interface CliEnvironment {
  readonly dataDir: string;
  readonly databaseUrl: string | undefined;
  readonly secretKey: string | undefined;
}

export const environment = (env: NodeJS.ProcessEnv): CliEnvironment => ({
  dataDir: path.resolve(env['TRACELIGHT_DATA_DIR'] || './.tracelight'),
  databaseUrl: env['TRACELIGHT_DATABASE_URL'] || undefined,
  secretKey: env['TRACELIGHT_SECRET_KEY'] || undefined,
});

export const buildCliContainer = async (env: CliEnvironment) => {
  const container = new Container();
  const mongo = env.databaseUrl?.startsWith('mongodb');
  const sqlitePath = env.databaseUrl?.startsWith('sqlite:') ? path.resolve(env.databaseUrl.slice('sqlite:'.length).replace(/^\/\//, '')) : path.join(env.dataDir, 'tracelight.db');
  // Only the engine in use is loaded: the other one's driver is never required.
  const engine = mongo
    ? await import('@tracelight/mongodb').then(({ MongoDatabaseToken, mongodbModule }) => ({
        module: mongodbModule({ url: env.databaseUrl! }),
        open: () => container.get<MongoDatabase>(MongoDatabaseToken).connect(),
        close: () => container.get<MongoDatabase>(MongoDatabaseToken).close(),
        backup: undefined,
      }))
    : await import('@tracelight/sqlite').then(({ SqliteStorageToken, sqliteModule }) => ({
        module: sqliteModule({ path: sqlitePath, writer: 'inline' }),
        open: () => container.get<SqliteStorage>(SqliteStorageToken).open(),
        close: () => container.get<SqliteStorage>(SqliteStorageToken).close(),
        backup: (file: string) => container.get<SqliteStorage>(SqliteStorageToken).backupTo(file),
      }));
  container.loadSync(
    // The same key as the server's (same data dir or TRACELIGHT_SECRET_KEY), or keys it mints would not work there.
    credentialsModule({ secretKey: loadOrCreateSecretKey({ fromEnv: env.secretKey, dataDir: env.dataDir }), tokenTtlSeconds: 3600, refreshTokenTtlSeconds: 3600, passwordCacheTtlSeconds: 0 }),
    engine.module,
  );
  await engine.open();
  const identity = new IdentityUseCases({
    users: container.get(UserRepository),
    apiKeys: container.get(ApiKeyRepository),
    hasher: container.get(PasswordHasher),
    minter: container.get(ApiKeyMinter),
    tokens: container.get(TokenSigner),
    clock: container.get(Clock),
    ids: container.get(IdGenerator),
  });
  const close = () => engine.close();
  const repositories = Object.fromEntries(
    Object.entries(REPOSITORY_TOKENS).map(([name, token]) => [name, container.get(token)]),
  ) as unknown as Repositories;
  /** A consistent copy of the SQLite database into a new file; undefined on MongoDB (mongodump does that). */
  const backup = engine.backup;
  return { container, identity, users: container.get<UserRepository>(UserRepository), repositories, close, backup };
};
