// The CLI's own composition root: the same domain, ports and storage adapters as the server, no HTTP.
import { type Env, type StorageConfig, loadStorageConfig } from '@tracelight/config';
import { credentialsModule, isUsableSecretKey, loadOrCreateSecretKey, SECRET_KEY_RULE } from '@tracelight/credentials';
import type { MongoDatabase } from '@tracelight/mongodb';
import {
  ApiKeyMinter,
  ApiKeyRepository,
  Clock,
  IdGenerator,
  PasswordHasher,
  ProjectRepository,
  REPOSITORY_TOKENS,
  type Repositories,
  RunRepository,
  TokenSigner,
  UserRepository,
} from '@tracelight/ports';
import type { SqliteStorage } from '@tracelight/sqlite';
import { IdentityUseCases, ProjectUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import { Container } from 'inversify';

/** The server's storage settings (the same variables, decoded by the same code), and its secret key. */
export interface CliEnvironment {
  readonly storage: StorageConfig;
  readonly secretKey: string | undefined;
}

/** What the CLI reads of the environment, or every problem with it, in the words the server uses. */
export const environment = (env: Env): E.Either<ReadonlyArray<string>, CliEnvironment> => {
  const storage = loadStorageConfig(env);
  const secretKey = env['TRACELIGHT_SECRET_KEY'] || undefined;
  const problems = [...(E.isLeft(storage) ? storage.left : []), ...(secretKey !== undefined && !isUsableSecretKey(secretKey) ? [SECRET_KEY_RULE] : [])];
  return E.isLeft(storage) || problems.length > 0 ? E.left(problems) : E.right({ storage: storage.right, secretKey });
};

export const buildCliContainer = async (env: CliEnvironment) => {
  const container = new Container();
  const { database, dataDir, sqliteSynchronous, sqliteMaxBytes } = env.storage;
  // Only the engine in use is loaded: the other one's driver is never required.
  const engine = database.engine === 'mongodb'
    ? await import('@tracelight/mongodb').then(({ MongoDatabaseToken, mongodbModule }) => ({
        module: mongodbModule({ url: database.url }),
        open: () => container.get<MongoDatabase>(MongoDatabaseToken).connect(),
        close: () => container.get<MongoDatabase>(MongoDatabaseToken).close(),
        backup: undefined,
      }))
    : await import('@tracelight/sqlite').then(({ SqliteStorageToken, sqliteModule }) => ({
        // Inline, whatever TRACELIGHT_SQLITE_WRITER says: a writer thread would serve no concurrency here.
        // The server's durability and quota, so that what the CLI writes is kept and limited alike.
        module: sqliteModule({
          path: database.path,
          writer: 'inline',
          synchronous: sqliteSynchronous,
          ...(sqliteMaxBytes !== undefined ? { maxBytes: sqliteMaxBytes } : {}),
        }),
        open: () => container.get<SqliteStorage>(SqliteStorageToken).open(),
        close: () => container.get<SqliteStorage>(SqliteStorageToken).close(),
        backup: (file: string) => container.get<SqliteStorage>(SqliteStorageToken).backupTo(file),
      }));
  container.loadSync(
    // The same key as the server's (same data dir or TRACELIGHT_SECRET_KEY), or keys it mints would not work there.
    credentialsModule({ secretKey: loadOrCreateSecretKey({ fromEnv: env.secretKey, dataDir }), tokenTtlSeconds: 3600, refreshTokenTtlSeconds: 3600, passwordCacheTtlSeconds: 0 }),
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
  // One command a process: nothing is worth remembering (knownForMs 0).
  const projects = new ProjectUseCases({
    projects: container.get(ProjectRepository),
    runs: container.get(RunRepository),
    clock: container.get(Clock),
    ids: container.get(IdGenerator),
  });
  const close = () => engine.close();
  const repositories = Object.fromEntries(
    Object.entries(REPOSITORY_TOKENS).map(([name, token]) => [name, container.get(token)]),
  ) as unknown as Repositories;
  /** A consistent copy of the SQLite database into a new file; undefined on MongoDB (mongodump does that). */
  const backup = engine.backup;
  return { container, identity, projects, users: container.get<UserRepository>(UserRepository), repositories, close, backup };
};
