// Binds the SQLite database and every repository port to its SQLite implementation.
import { REPOSITORY_TOKENS, StorageHealth, buildRepositories } from '@tracelight/ports';
import { ContainerModule } from 'inversify';
import type { SqliteDatabase } from './shared/sqlite-database';
import { SqliteStorage, SqliteStorageToken, type SqliteStorageOptions } from './shared/sqlite-storage';
import { SQLITE_REPOSITORIES } from './sqlite.repositories';

/** The storage is bound unopened: the composition root awaits `SqliteStorage.open()` before resolving ports. */
export const sqliteModule = (options: SqliteStorageOptions) =>
  new ContainerModule(({ bind }) => {
    bind(SqliteStorageToken).toConstantValue(new SqliteStorage(options));
    for (const key of Object.keys(SQLITE_REPOSITORIES) as Array<keyof typeof SQLITE_REPOSITORIES>) {
      bind(REPOSITORY_TOKENS[key])
        .toDynamicValue((c) => c.get<SqliteStorage>(SqliteStorageToken).repositories[key])
        .inSingletonScope();
    }
    bind(StorageHealth).toDynamicValue((c) => c.get<SqliteStorage>(SqliteStorageToken)).inSingletonScope();
  });

/** Every repository over one database, without a container: for the contract suite and for embedders. */
export const sqliteRepositories = (database: SqliteDatabase) => buildRepositories(SQLITE_REPOSITORIES, database);

export { SQLITE_REPOSITORIES, SQLITE_WRITES } from './sqlite.repositories';
