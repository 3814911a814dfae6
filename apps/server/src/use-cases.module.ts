// Binds the domain's use cases to the ports the container already holds. The domain itself knows no DI.
import {
  ApiKeyMinter,
  ApiKeyRepository,
  Clock,
  CodeSandbox,
  IdGenerator,
  InsightsRepository,
  IntegrationRepository,
  PasswordHasher,
  ProjectRepository,
  RefreshFamilyRepository,
  RunRepository,
  RunScorerSettingsRepository,
  ScorerRepository,
  ScorerVersionRepository,
  SecretSealer,
  TokenSigner,
  UserRepository,
  LogRecordRepository,
  ScoringQueue,
} from '@tracelight/ports';
import {
  ColumnUseCases,
  EvaluationUseCases,
  IdentityUseCases,
  InsightsUseCases,
  IntegrationUseCases,
  ProjectUseCases,
  RetentionUseCases,
  ScorerUseCases,
  TracingUseCases,
} from '@tracelight/use-cases';
import { ContainerModule } from 'inversify';

/** The sandbox uploads are compiled in, where the process has one (TRACELIGHT_SANDBOX_WORKERS > 0). */
const sandboxOf = (sandbox: CodeSandbox | undefined): { sandbox?: CodeSandbox } => (sandbox !== undefined ? { sandbox } : {});

export const useCasesModule = (limits: {
  maxRecordsPerRequest: number;
  pageBytes: number;
  searchMs: number;
  credentialCacheMs: number;
  sessionMaxAgeSeconds: number;
  refreshReuseGraceMs: number;
  endedFamiliesKeptMs: number;
  /** Told when a write queued scoring jobs: wakes this process's idle scoring workers. */
  onJobsQueued?: () => void;
}) => new ContainerModule(({ bind }) => {
  const onJobsQueued = limits.onJobsQueued !== undefined ? { onJobsQueued: limits.onJobsQueued } : {};
  bind(IdentityUseCases)
    .toDynamicValue(
      (c) =>
        new IdentityUseCases({
          users: c.get(UserRepository),
          apiKeys: c.get(ApiKeyRepository),
          hasher: c.get(PasswordHasher),
          minter: c.get(ApiKeyMinter),
          tokens: c.get(TokenSigner),
          refreshFamilies: c.get(RefreshFamilyRepository),
          clock: c.get(Clock),
          ids: c.get(IdGenerator),
          credentialCacheMs: limits.credentialCacheMs,
          sessionMaxAgeSeconds: limits.sessionMaxAgeSeconds,
          refreshReuseGraceMs: limits.refreshReuseGraceMs,
          endedFamiliesKeptMs: limits.endedFamiliesKeptMs,
        }),
    )
    .inSingletonScope();
  bind(ProjectUseCases)
    .toDynamicValue(
      (c) =>
        new ProjectUseCases({
          projects: c.get(ProjectRepository),
          runs: c.get(RunRepository),
          clock: c.get(Clock),
          ids: c.get(IdGenerator),
          // As for revoked keys: a deletion by another process is seen here within this time.
          knownForMs: limits.credentialCacheMs,
        }),
    )
    .inSingletonScope();
  bind(InsightsUseCases)
    .toDynamicValue(
      (c) => new InsightsUseCases({ projects: c.get(ProjectUseCases), insights: c.get(InsightsRepository), clock: c.get(Clock) }),
    )
    .inSingletonScope();
  bind(IntegrationUseCases)
    .toDynamicValue(
      (c) =>
        new IntegrationUseCases({
          integrations: c.get(IntegrationRepository),
          sealer: c.get(SecretSealer),
          clock: c.get(Clock),
          ids: c.get(IdGenerator),
        }),
    )
    .inSingletonScope();
  bind(ScorerUseCases)
    .toDynamicValue(
      (c) =>
        new ScorerUseCases({
          projects: c.get(ProjectUseCases),
          scorers: c.get(ScorerRepository),
          versions: c.get(ScorerVersionRepository),
          runScorers: c.get(RunScorerSettingsRepository),
          clock: c.get(Clock),
          ids: c.get(IdGenerator),
          pageBytes: limits.pageBytes,
          // As projects and runs: a settings change by another process is seen within this time.
          planKnownForMs: limits.credentialCacheMs,
          ...sandboxOf(c.get<CodeSandbox | undefined>(CodeSandbox, { optional: true })),
        }),
    )
    .inSingletonScope();
  bind(EvaluationUseCases)
    .toDynamicValue(
      (c) =>
        new EvaluationUseCases({
          projects: c.get(ProjectUseCases),
          scorers: c.get(ScorerUseCases),
          records: c.get(LogRecordRepository),
          queue: c.get(ScoringQueue),
          clock: c.get(Clock),
          ...onJobsQueued,
        }),
    )
    .inSingletonScope();
  bind(ColumnUseCases)
    .toDynamicValue(
      (c) => new ColumnUseCases({ projects: c.get(ProjectUseCases), scorers: c.get(ScorerUseCases), records: c.get(LogRecordRepository) }),
    )
    .inSingletonScope();
  bind(TracingUseCases)
    .toDynamicValue(
      (c) =>
        new TracingUseCases({
          projects: c.get(ProjectUseCases),
          columns: c.get(ColumnUseCases),
          records: c.get(LogRecordRepository),
          clock: c.get(Clock),
          ids: c.get(IdGenerator),
          maxRecordsPerRequest: limits.maxRecordsPerRequest,
          pageBytes: limits.pageBytes,
          searchMs: limits.searchMs,
          scoring: c.get(ScorerUseCases),
          ...onJobsQueued,
        }),
    )
    .inSingletonScope();
  bind(RetentionUseCases)
    .toDynamicValue((c) => new RetentionUseCases({ records: c.get(LogRecordRepository), clock: c.get(Clock) }))
    .inSingletonScope();
});
