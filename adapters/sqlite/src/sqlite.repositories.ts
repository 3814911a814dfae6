// The SQLite implementation of every repository port, and which of their methods write.
import type { RepositoryClasses, Repositories } from '@tracelight/ports';
import { SqliteApiKeyRepository } from './identity/sqlite-api-key.repository';
import { SqliteRefreshFamilyRepository } from './identity/sqlite-refresh-family.repository';
import { SqliteUserRepository } from './identity/sqlite-user.repository';
import { SqliteInsightsRepository } from './insights/sqlite-insights.repository';
import { SqliteIntegrationRepository } from './integrations/sqlite-integration.repository';
import { SqliteProjectRepository } from './projects-runs/sqlite-project.repository';
import { SqliteRunRepository } from './projects-runs/sqlite-run.repository';
import { SqliteRunScorerSettingsRepository } from './scorers/sqlite-run-scorer-settings.repository';
import { SqliteScorerVersionRepository } from './scorers/sqlite-scorer-version.repository';
import { SqliteScorerRepository } from './scorers/sqlite-scorer.repository';
import type { SqliteDatabase } from './shared/sqlite-database';
import { SqliteLogRecordRepository } from './tracing/sqlite-log-record.repository';
import { SqliteScoringQueue } from './evaluation/sqlite-scoring-queue';

export const SQLITE_REPOSITORIES: RepositoryClasses<SqliteDatabase> = {
  users: SqliteUserRepository,
  apiKeys: SqliteApiKeyRepository,
  refreshFamilies: SqliteRefreshFamilyRepository,
  projects: SqliteProjectRepository,
  runs: SqliteRunRepository,
  insights: SqliteInsightsRepository,
  integrations: SqliteIntegrationRepository,
  scorers: SqliteScorerRepository,
  scorerVersions: SqliteScorerVersionRepository,
  runScorers: SqliteRunScorerSettingsRepository,
  logRecords: SqliteLogRecordRepository,
  scoringQueue: SqliteScoringQueue,
};

/**
 * The port methods that write. With a writer thread they run there (group commit); every other
 * method reads on the caller's read-only connection, where a write would fail loudly. A test checks
 * that every port method is either here or a read.
 */
export const SQLITE_WRITES: { readonly [K in keyof Repositories]: ReadonlyArray<keyof Repositories[K] & string> } = {
  users: ['insert', 'revokeSessions', 'rehashPassword'],
  apiKeys: ['insert', 'revoke', 'touch', 'rehash'],
  refreshFamilies: ['insert', 'rotate', 'revoke', 'removeEndedBefore'],
  projects: ['insert', 'retire', 'purgeStep'],
  runs: ['insert'],
  insights: ['replace'],
  integrations: ['upsert', 'replaceSecret'],
  scorers: ['insert'],
  // appendNext takes a function, which cannot cross threads: see routeCalls.
  scorerVersions: ['appendNext'],
  runScorers: ['replace'],
  logRecords: ['ingest', 'ingestIntoNewRun', 'findOrCreateSession', 'update', 'removeCreatedBefore'],
  scoringQueue: ['claim', 'renew', 'complete', 'requeue'],
};
