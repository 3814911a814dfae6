// The configured storage engine: only its adapter is loaded, and on SQLite its writer thread can start as
// soon as the configuration is known, while the rest of the server loads.
import type { HttpMetrics } from '@tracelight/http-koa';
import type { MongoDatabase } from '@tracelight/mongodb';
import type { SqliteStorage, ThreadScripts } from '@tracelight/sqlite';
import type { Container, ContainerModule } from 'inversify';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ServerConfig } from './config';

/** The configured storage engine's module, and how to open and close what it binds. */
export interface Engine {
  readonly module: ContainerModule;
  open(container: Container): Promise<void>;
  /** Once the threads `open` left starting are up. */
  warmed(container: Container): Promise<void>;
  close(container: Container): Promise<void>;
  /** Reports in /metrics what the engine's adapter keeps in memory that grows with clients. */
  watch?(container: Container, metrics: HttpMetrics): void;
}

/**
 * The SQLite threads' scripts bundled beside this code, where the server runs from its bundle (dist/, made
 * by pnpm build: scripts/bundle.mjs); run from its sources (tests), the adapter's own compiled workers.
 */
const bundledThreadScripts = (): ThreadScripts | undefined => {
  const scripts = { writer: path.join(__dirname, 'sqlite-writer.worker.js'), search: path.join(__dirname, 'sqlite-search.worker.js') };
  return fs.existsSync(scripts.writer) && fs.existsSync(scripts.search) ? scripts : undefined;
};

/**
 * Loads only the configured engine's adapter: the other one's driver is never required (the MongoDB
 * driver alone takes about 0.1 s to load, in every process and offload worker that would not use it).
 * `early`: on SQLite with a writer thread, the thread is started now, so that it loads its code and
 * migrates the database while the caller loads the rest of its own (on a start, the main thread waited
 * for it about as long as it took to load everything else).
 */
export const loadEngine = async (config: ServerConfig, { early = false }: { early?: boolean } = {}): Promise<Engine> => {
  if (config.database.engine === 'sqlite') {
    const { SqliteStorageToken, sqliteModule, startSqliteWriter } = await import('@tracelight/sqlite');
    const storage = (container: Container) => container.get<SqliteStorage>(SqliteStorageToken);
    const threadScripts = bundledThreadScripts();
    const options = {
      path: config.database.path,
      synchronous: config.sqliteSynchronous,
      writer: config.sqliteWriter,
      searchThreads: config.sqliteSearchThreads,
      ...(config.sqliteMaxBytes !== undefined ? { maxBytes: config.sqliteMaxBytes } : {}),
      ...(threadScripts !== undefined ? { threadScripts } : {}),
    };
    const writerStarted = early && config.sqliteWriter === 'thread' ? startSqliteWriter(options) : undefined;
    return {
      module: sqliteModule({ ...options, ...(writerStarted !== undefined ? { writerStarted } : {}) }),
      open: (container) => storage(container).open(),
      warmed: (container) => storage(container).warmed(),
      close: (container) => storage(container).close(),
      watch: (container, metrics) => {
        const sqlite = storage(container);
        for (const name of Object.keys(sqlite.held())) metrics.watch(name, () => sqlite.held()[name]!);
      },
    };
  }
  const { MongoDatabaseToken, mongodbModule } = await import('@tracelight/mongodb');
  const database = (container: Container) => container.get<MongoDatabase>(MongoDatabaseToken);
  return {
    module: mongodbModule({ url: config.database.url }),
    open: (container) => database(container).connect(),
    warmed: () => Promise.resolve(),
    close: (container) => database(container).close(),
  };
};
