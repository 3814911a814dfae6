// The SQLite storage adapter (better-sqlite3): WAL, versioned migrations, one repository per port.
export * from './shared/sqlite-database';
export * from './shared/migrations';
export * from './shared/sqlite-storage';
export type { DatabaseCopy } from './shared/sqlite-backup';
export type { ThreadScripts } from './shared/sqlite-thread';
export * from './sqlite.module';
export * from './identity/sqlite-user.repository';
export * from './identity/sqlite-api-key.repository';
export * from './identity/sqlite-refresh-family.repository';
export * from './projects-runs/sqlite-project.repository';
export * from './projects-runs/sqlite-run.repository';
export * from './insights/sqlite-insights.repository';
export * from './integrations/sqlite-integration.repository';
export * from './scorers/sqlite-scorer.repository';
export * from './scorers/sqlite-scorer-version.repository';
export * from './scorers/sqlite-run-scorer-settings.repository';
export * from './tracing/sqlite-log-record.repository';
export * from './evaluation/sqlite-scoring-queue';
