// The CLI's own composition root: the same domain, ports and storage adapters as the server, no HTTP.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type Env, type StorageConfig, loadStorageConfig } from '@tracelight/config';
import { credentialsModule, isUsableSecretKey, keyId, loadOrCreateSecretKey, loadSecretKey, parseSecretKey, passwordCostSetting, sameKeysProblem, SECRET_KEY_RULE } from '@tracelight/credentials';
import type { MongoDatabase } from '@tracelight/mongodb';
import {
  ApiKeyMinter,
  ApiKeyRepository,
  Clock,
  IdGenerator,
  IntegrationRepository,
  PasswordHasher,
  ProjectRepository,
  RefreshFamilyRepository,
  REPOSITORY_TOKENS,
  type Repositories,
  RunRepository,
  SecretSealer,
  TokenSigner,
  UserRepository,
} from '@tracelight/ports';
import type { SqliteStorage } from '@tracelight/sqlite';
import { IdentityUseCases, IntegrationUseCases, ProjectUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import { Container } from 'inversify';

/** The server's storage settings (the same variables, decoded by the same code), and its secret key. */
export interface CliEnvironment {
  readonly storage: StorageConfig;
  readonly secretKey: string | undefined;
  /** TRACELIGHT_PREVIOUS_SECRET_KEY: the master key before a rotation (reseal-secrets seals anew what it sealed). */
  readonly previousSecretKey: string | undefined;
  /** TRACELIGHT_PASSWORD_COST: create-user hashes at the server's cost. */
  readonly passwordCost: number;
}

/** What the CLI reads of the environment, or every problem with it, in the words the server uses. */
export const environment = (env: Env): E.Either<ReadonlyArray<string>, CliEnvironment> => {
  const storage = loadStorageConfig(env);
  const secretKey = env['TRACELIGHT_SECRET_KEY'] || undefined;
  const previousSecretKey = env['TRACELIGHT_PREVIOUS_SECRET_KEY'] || undefined;
  const passwordCost = passwordCostSetting(env['TRACELIGHT_PASSWORD_COST']);
  const problems = [
    ...(E.isLeft(storage) ? storage.left : []),
    ...(secretKey !== undefined && !isUsableSecretKey(secretKey) ? [SECRET_KEY_RULE] : []),
    ...(previousSecretKey !== undefined && !isUsableSecretKey(previousSecretKey) ? [SECRET_KEY_RULE.replace('TRACELIGHT_SECRET_KEY', 'TRACELIGHT_PREVIOUS_SECRET_KEY')] : []),
    ...('problem' in passwordCost ? [passwordCost.problem] : []),
  ];
  return E.isLeft(storage) || problems.length > 0 || !('cost' in passwordCost)
    ? E.left(problems)
    : E.right({ storage: storage.right, secretKey, previousSecretKey, passwordCost: passwordCost.cost });
};

/** A schema migration as the database keeps it: applied once, in order of version. */
export interface Migration {
  readonly version: number;
  readonly name: string;
}

/** The database the settings name is not there (a mistyped data dir or URL), and the command does not make one. */
export class NoDatabase extends Error {}

/** A command that uses the servers' secret key finds none (neither TRACELIGHT_SECRET_KEY nor secret.key), and does not make one. */
export class NoSecretKey extends Error {}

/** TRACELIGHT_PREVIOUS_SECRET_KEY names the key in use: a rotation mis-set (the same key twice, or the two swapped after a start). */
export class SameSecretKeys extends Error {}

/**
 * The container on the database the settings name. Only with `create` is a database made where there
 * is none (and a secret key with it): any other command on a mistyped data dir or URL would otherwise
 * set up a new, empty database there and go on as if it were the operator's.
 */
/**
 * The backup's process script bundled beside this code, where the CLI runs from its bundle (dist/, made by
 * pnpm build: scripts/bundle.mjs); run from tsc's output or its sources, the adapter's own compiled script.
 */
const bundledBackupScript = (): { readonly backupScript?: string } => {
  const script = path.join(__dirname, 'sqlite-backup.process.js');
  return fs.existsSync(script) ? { backupScript: script } : {};
};

export const buildCliContainer = async (env: CliEnvironment, options: { readonly create: boolean; readonly usesKey: boolean }) => {
  const container = new Container();
  const { database, dataDir, sqliteSynchronous, sqliteMaxBytes } = env.storage;
  // Only the engine in use is loaded: the other one's driver is never required.
  const engine = database.engine === 'mongodb'
    ? await import('@tracelight/mongodb').then(({ MongoDatabaseToken, mongodbModule }) => {
        const mongo = () => container.get<MongoDatabase>(MongoDatabaseToken);
        const migrations = async (): Promise<ReadonlyArray<Migration>> =>
          (await mongo().db.collection<{ _id: number; name: string }>('schema_migrations').find({}).sort({ _id: 1 }).toArray()).map((m) => ({ version: m._id, name: m.name }));
        return {
          module: mongodbModule({ url: database.url }),
          // By its name alone: the URL may hold a password.
          where: () => `the MongoDB database ${mongo().db.databaseName}`,
          // A database Tracelight has set up records its migrations; a new one (a mistyped name) has none.
          exists: async () => (await migrations()).length > 0,
          migrations,
          open: () => mongo().connect(),
          close: () => mongo().close(),
          backup: undefined,
          // No snapshot through the ports here: the export checks what it reads instead (exportProject).
          readingOneSnapshot: undefined,
        };
      })
    : await import('@tracelight/sqlite').then(({ SqliteDatabase, SqliteStorageToken, sqliteModule }) => ({
        // Inline, whatever TRACELIGHT_SQLITE_WRITER says: a writer thread would serve no concurrency here.
        // The server's durability and quota, so that what the CLI writes is kept and limited alike.
        module: sqliteModule({
          path: database.path,
          writer: 'inline',
          synchronous: sqliteSynchronous,
          ...(sqliteMaxBytes !== undefined ? { maxBytes: sqliteMaxBytes } : {}),
          ...bundledBackupScript(),
        }),
        where: () => database.path,
        exists: async () => fs.existsSync(database.path),
        // Read on a connection of their own, which never migrates: before the storage opens (and migrates), and after.
        migrations: async (): Promise<ReadonlyArray<Migration>> => {
          if (!fs.existsSync(database.path)) return [];
          const reader = new SqliteDatabase({ path: database.path, readonly: true });
          try {
            const table = reader.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
            return table ? (reader.db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as Migration[]) : [];
          } finally {
            reader.close();
          }
        },
        open: () => container.get<SqliteStorage>(SqliteStorageToken).open(),
        close: () => container.get<SqliteStorage>(SqliteStorageToken).close(),
        backup: (file: string) => container.get<SqliteStorage>(SqliteStorageToken).backupTo(file),
        readingOneSnapshot: <A>(work: () => Promise<A>) => container.get<SqliteStorage>(SqliteStorageToken).readingOneSnapshot(work),
      }));
  container.loadSync(engine.module);
  const existed = await engine.exists();
  if (!existed && !options.create) {
    await engine.close();
    throw new NoDatabase(`no database at ${engine.where()}`);
  }
  // The same key as the server's (same data dir or TRACELIGHT_SECRET_KEY), or keys it mints would not work
  // there and secrets it seals would not open. Made only by a first set-up (create-user making the
  // database; on one that exists, the servers' key may be in TRACELIGHT_SECRET_KEY only): a command that mints or seals
  // with it and finds none is refused (a key of its own would quietly make API keys no server takes, or
  // seal every gateway token anew under a key no server has); one that never uses it gets a key of the
  // moment, kept nowhere.
  const secretKey = options.create && !existed ? loadOrCreateSecretKey({ fromEnv: env.secretKey, dataDir }) : loadSecretKey({ fromEnv: env.secretKey, dataDir });
  if (secretKey === undefined && options.usesKey) {
    await engine.close();
    throw new NoSecretKey(`no secret key: neither TRACELIGHT_SECRET_KEY nor ${path.join(dataDir, 'secret.key')}`);
  }
  const previousSecretKey = env.previousSecretKey !== undefined ? parseSecretKey(env.previousSecretKey) : undefined;
  const mistake = secretKey && sameKeysProblem(secretKey, previousSecretKey);
  if (mistake !== undefined) {
    await engine.close();
    throw new SameSecretKeys(mistake);
  }
  const before = new Set((await engine.migrations()).map((m) => m.version));
  container.loadSync(
    credentialsModule({
      secretKey: secretKey ?? randomBytes(32),
      ...(previousSecretKey !== undefined ? { previousSecretKey } : {}),
      tokenTtlSeconds: 3600,
      refreshTokenTtlSeconds: 3600,
      passwordCacheTtlSeconds: 0,
      passwordCost: env.passwordCost,
    }),
  );
  await engine.open();
  const schema = await engine.migrations();
  /** The migrations this opening applied, in order (a server starting meanwhile may have applied some of them). */
  const migrated = schema.filter((m) => !before.has(m.version));
  const version = Math.max(0, ...schema.map((m) => m.version));
  const identity = new IdentityUseCases({
    users: container.get(UserRepository),
    apiKeys: container.get(ApiKeyRepository),
    hasher: container.get(PasswordHasher),
    minter: container.get(ApiKeyMinter),
    tokens: container.get(TokenSigner),
    refreshFamilies: container.get(RefreshFamilyRepository),
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
  const integrations = new IntegrationUseCases({
    integrations: container.get(IntegrationRepository),
    sealer: container.get(SecretSealer),
    clock: container.get(Clock),
    ids: container.get(IdGenerator),
  });
  /** The ids of the keys in use (keyId), as the servers log them at start; undefined for a key of the moment. */
  const keyIds = {
    secretKeyId: secretKey !== undefined ? keyId(secretKey) : undefined,
    previousSecretKeyId: previousSecretKey !== undefined ? keyId(previousSecretKey) : undefined,
  };
  const close = () => engine.close();
  const repositories = Object.fromEntries(
    Object.entries(REPOSITORY_TOKENS).map(([name, token]) => [name, container.get(token)]),
  ) as unknown as Repositories;
  /** A consistent copy of the SQLite database into a new file; undefined on MongoDB (mongodump does that). */
  const backup = engine.backup;
  /** Runs reads that must all see one moment of the database (an export); undefined on MongoDB. */
  const readingOneSnapshot: (<A>(work: () => Promise<A>) => Promise<A>) | undefined = engine.readingOneSnapshot;
  return {
    container,
    identity,
    projects,
    integrations,
    keyIds,
    users: container.get<UserRepository>(UserRepository),
    repositories,
    close,
    backup,
    readingOneSnapshot,
    /** Where the database is, in words (no secret): its file, or its MongoDB name. */
    where: engine.where(),
    /** Whether it was made now, there being none. */
    created: !existed,
    migrated,
    version,
  };
};
