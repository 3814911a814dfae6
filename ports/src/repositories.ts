// Every repository port under one name each, with its token: what a storage adapter must provide.
import { ApiKeyRepository } from './identity/api-key.repository';
import { RefreshFamilyRepository } from './identity/refresh-family.repository';
import { UserRepository } from './identity/user.repository';
import { InsightsRepository } from './insights/insights.repository';
import { IntegrationRepository } from './integrations/integration.repository';
import { ProjectRepository } from './projects-runs/project.repository';
import { RunRepository } from './projects-runs/run.repository';
import { RunScorerSettingsRepository } from './scorers/run-scorer-settings.repository';
import { ScorerVersionRepository } from './scorers/scorer-version.repository';
import { ScorerRepository } from './scorers/scorer.repository';
import { LogRecordRepository } from './tracing/log-record.repository';
import { ScoringQueue } from './evaluation/scoring-queue';

export interface Repositories {
  readonly users: UserRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly refreshFamilies: RefreshFamilyRepository;
  readonly projects: ProjectRepository;
  readonly runs: RunRepository;
  readonly insights: InsightsRepository;
  readonly integrations: IntegrationRepository;
  readonly scorers: ScorerRepository;
  readonly scorerVersions: ScorerVersionRepository;
  readonly runScorers: RunScorerSettingsRepository;
  readonly logRecords: LogRecordRepository;
  readonly scoringQueue: ScoringQueue;
}

export const REPOSITORY_TOKENS: { readonly [K in keyof Repositories]: symbol } = {
  users: UserRepository,
  apiKeys: ApiKeyRepository,
  refreshFamilies: RefreshFamilyRepository,
  projects: ProjectRepository,
  runs: RunRepository,
  insights: InsightsRepository,
  integrations: IntegrationRepository,
  scorers: ScorerRepository,
  scorerVersions: ScorerVersionRepository,
  runScorers: RunScorerSettingsRepository,
  logRecords: LogRecordRepository,
  scoringQueue: ScoringQueue,
};

/** An adapter's implementation of each repository port, all constructed from one database handle. */
export type RepositoryClasses<D> = { readonly [K in keyof Repositories]: new (database: D) => Repositories[K] };

/** Builds every repository over one database, without a container (contract suites, embedders). */
export const buildRepositories = <D>(classes: RepositoryClasses<D>, database: D): Repositories => ({
  users: new classes.users(database),
  apiKeys: new classes.apiKeys(database),
  refreshFamilies: new classes.refreshFamilies(database),
  projects: new classes.projects(database),
  runs: new classes.runs(database),
  insights: new classes.insights(database),
  integrations: new classes.integrations(database),
  scorers: new classes.scorers(database),
  scorerVersions: new classes.scorerVersions(database),
  runScorers: new classes.runScorers(database),
  logRecords: new classes.logRecords(database),
  scoringQueue: new classes.scoringQueue(database),
});
