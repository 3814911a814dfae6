// Binds the MongoDB database and every repository port to its MongoDB implementation.
import { REPOSITORY_TOKENS, type RepositoryClasses, StorageHealth, buildRepositories } from '@tracelight/ports';
import { ContainerModule } from 'inversify';
import { MongoStorageHealth } from './shared/mongo-storage-health';
import { MongoApiKeyRepository } from './identity/mongo-api-key.repository';
import { MongoRefreshFamilyRepository } from './identity/mongo-refresh-family.repository';
import { MongoUserRepository } from './identity/mongo-user.repository';
import { MongoInsightsRepository } from './insights/mongo-insights.repository';
import { MongoIntegrationRepository } from './integrations/mongo-integration.repository';
import { MongoProjectRepository } from './projects-runs/mongo-project.repository';
import { MongoRunRepository } from './projects-runs/mongo-run.repository';
import { MongoRunScorerSettingsRepository } from './scorers/mongo-run-scorer-settings.repository';
import { MongoScorerVersionRepository } from './scorers/mongo-scorer-version.repository';
import { MongoScorerRepository } from './scorers/mongo-scorer.repository';
import { MongoDatabase, MongoDatabaseToken, type MongoOptions } from './shared/mongo-database';
import { MongoLogRecordRepository } from './tracing/mongo-log-record.repository';
import { MongoScoringQueue } from './evaluation/mongo-scoring-queue';

export const MONGO_REPOSITORIES: RepositoryClasses<MongoDatabase> = {
  users: MongoUserRepository,
  apiKeys: MongoApiKeyRepository,
  refreshFamilies: MongoRefreshFamilyRepository,
  projects: MongoProjectRepository,
  runs: MongoRunRepository,
  insights: MongoInsightsRepository,
  integrations: MongoIntegrationRepository,
  scorers: MongoScorerRepository,
  scorerVersions: MongoScorerVersionRepository,
  runScorers: MongoRunScorerSettingsRepository,
  logRecords: MongoLogRecordRepository,
  scoringQueue: MongoScoringQueue,
};

/** The composition root must `await container.get(MongoDatabaseToken).connect()` before serving. */
export const mongodbModule = (options: MongoOptions) =>
  new ContainerModule(({ bind }) => {
    bind(MongoDatabaseToken).toDynamicValue(() => new MongoDatabase(options)).inSingletonScope();
    for (const key of Object.keys(MONGO_REPOSITORIES) as Array<keyof typeof MONGO_REPOSITORIES>) {
      bind(REPOSITORY_TOKENS[key]).to(MONGO_REPOSITORIES[key]).inSingletonScope();
    }
    bind(StorageHealth).to(MongoStorageHealth).inSingletonScope();
  });

/** Every repository over one database, without a container: for the contract suite and for embedders. */
export const mongoRepositories = (database: MongoDatabase) => buildRepositories(MONGO_REPOSITORIES, database);
