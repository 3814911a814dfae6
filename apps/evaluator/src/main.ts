// tracelight-evaluator: the scoring workers alone, without the API. The same domain, ports and adapters as
// the server, on the same database: started beside the servers (on MongoDB, any number of them), it scores
// what they queue, so that scoring scales apart from the API. Servers that leave scoring to it run with
// TRACELIGHT_SCORING_WORKERS=0. With TRACELIGHT_EVALUATOR_PORT it answers /metrics and /healthcheck.
import 'reflect-metadata';
import { DEFAULT_PASSWORD_COST, credentialsModule, keyId, loadSecretKey, parseSecretKey } from '@tracelight/credentials';
import type { MongoDatabase } from '@tracelight/mongodb';
import { OpenAiJudgeModel } from '@tracelight/openai-gateway';
import { PyodideSandbox } from '@tracelight/pyodide-sandbox';
import {
  CannotStart,
  Clock,
  IdGenerator,
  IntegrationRepository,
  LogRecordRepository,
  ProjectRepository,
  RunRepository,
  RunScorerSettingsRepository,
  ScorerRepository,
  ScorerVersionRepository,
  ScoringQueue,
  SecretSealer,
} from '@tracelight/ports';
import { type ScoringLog, ScoringMetrics, composeScoring } from '@tracelight/scoring-workers';
import type { SqliteStorage } from '@tracelight/sqlite';
import { CodeScorerRunner, ProjectUseCases, ScorerUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import { Container } from 'inversify';
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { type EvaluatorConfig, loadEvaluatorConfig } from './config';
import { type ProbeServer, startProbeServer } from './probe-server';

/** One JSON object per line, as the server writes them: info on stdout, warn and error on stderr. */
const line = (level: 'info' | 'warn' | 'error', fields: Record<string, unknown>, message: string) =>
  (level === 'info' ? process.stdout : process.stderr).write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...fields })}\n`);
const log: ScoringLog = {
  info: (fields, message) => line('info', fields, message),
  warn: (fields, message) => line('warn', fields, message),
  error: (fields, message) => line('error', fields, message),
};

/** The storage engine the configuration names: its module, and how to open and close it. */
const engineOf = async (config: EvaluatorConfig, container: Container) => {
  if (config.database.engine === 'sqlite') {
    const { SqliteStorageToken, sqliteModule } = await import('@tracelight/sqlite');
    const storage = () => container.get<SqliteStorage>(SqliteStorageToken);
    return {
      // A writer thread, as the server's: outcomes are committed in groups, off this thread.
      module: sqliteModule({ path: config.database.path, synchronous: config.sqliteSynchronous, searchThreads: 0, ...(config.sqliteMaxBytes !== undefined ? { maxBytes: config.sqliteMaxBytes } : {}) }),
      open: () => storage().open(),
      close: () => storage().close(),
    };
  }
  const { MongoDatabaseToken, mongodbModule } = await import('@tracelight/mongodb');
  const mongo = () => container.get<MongoDatabase>(MongoDatabaseToken);
  return { module: mongodbModule({ url: config.database.url }), open: () => mongo().connect(), close: () => mongo().close() };
};

const main = async (): Promise<void> => {
  const loaded = loadEvaluatorConfig(process.env);
  if (E.isLeft(loaded)) {
    process.stderr.write(`tracelight-evaluator cannot start; fix the configuration:\n${loaded.left.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(2);
  }
  const config = loaded.right;
  if (config.scoringWorkers === 0) {
    process.stderr.write('tracelight-evaluator cannot start: TRACELIGHT_SCORING_WORKERS is 0, so it would score nothing\n');
    process.exit(2);
  }
  // The servers' key (TRACELIGHT_SECRET_KEY, or secret.key in the data dir): never one of its own,
  // which would open none of the gateway tokens they sealed.
  const secretKey = loadSecretKey({ fromEnv: config.secretKey, dataDir: config.dataDir });
  if (secretKey === undefined)
    throw new CannotStart(`no secret key: set TRACELIGHT_SECRET_KEY to the servers' key, or TRACELIGHT_DATA_DIR to the data dir holding their secret.key (${config.dataDir} has none)`);
  const container = new Container();
  const engine = await engineOf(config, container);
  container.loadSync(
    credentialsModule({
      secretKey,
      ...(config.previousSecretKey !== undefined ? { previousSecretKey: parseSecretKey(config.previousSecretKey) } : {}),
      // Unused here (it mints and hashes nothing), but part of the module.
      tokenTtlSeconds: 3600,
      refreshTokenTtlSeconds: 604_800,
      passwordCacheTtlSeconds: 0,
      passwordCost: DEFAULT_PASSWORD_COST,
    }),
    engine.module,
  );
  await engine.open();
  // The server's scoring metrics, by the same definitions, and the process defaults under their standard names.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = new ScoringMetrics(registry);
  const queue = container.get<ScoringQueue>(ScoringQueue);
  metrics.watchQueue(async () => {
    const depth = await queue.depth()();
    return E.isRight(depth) ? depth.right : undefined;
  });
  const projects = new ProjectUseCases({ projects: container.get(ProjectRepository), runs: container.get(RunRepository), clock: container.get(Clock), ids: container.get(IdGenerator) });
  const scorers = new ScorerUseCases({
    projects,
    scorers: container.get(ScorerRepository),
    versions: container.get(ScorerVersionRepository),
    runScorers: container.get(RunScorerSettingsRepository),
    clock: container.get(Clock),
    ids: container.get(IdGenerator),
    pageBytes: 16 * 1024 * 1024,
    planKnownForMs: config.credentialCacheMs,
  });
  // Code scorers run here too (their interpreters start on first use); uploads are the servers' to compile.
  const counted = metrics.sandbox();
  const sandbox =
    config.sandboxWorkers > 0
      ? new PyodideSandbox(
          { workers: config.sandboxWorkers, timeLimitMs: config.sandboxTimeLimitMs, memoryMb: config.sandboxMemoryMb, idleMs: config.sandboxIdleMs },
          {
            started: counted.started,
            replaced: (reason) => {
              counted.replaced(reason);
              log.warn({ reason }, 'a code scorer interpreter was ended and will be replaced');
            },
          },
        )
      : undefined;
  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const { pool } = composeScoring(
    {
      queue,
      records: container.get(LogRecordRepository),
      scorers,
      versions: container.get(ScorerVersionRepository),
      integrations: container.get(IntegrationRepository),
      sealer: container.get(SecretSealer),
      clock: container.get(Clock),
      judge: new OpenAiJudgeModel({ timeoutMs: config.judgeTimeoutMs, concurrencyPerGateway: config.gatewayConcurrency, allowedNetworks: config.gatewayAllowedNetworks }),
    },
    config,
    owner,
    log,
    metrics.observers(),
    sandbox !== undefined ? { code: new CodeScorerRunner({ sandbox }) } : {},
  );
  let stopping = false;
  // Listening before the workers start: a port that cannot be had stops the process before it scores anything.
  const probes: ProbeServer | undefined =
    config.port === undefined
      ? undefined
      : await startProbeServer(
          config.host,
          config.port,
          { metrics: async () => ({ contentType: registry.contentType, text: await registry.metrics() }), scoring: () => !stopping },
          (e) => log.error({ error: e instanceof Error ? e.message : String(e) }, 'the metrics and health server failed'),
        ).catch((e: unknown) => {
          throw new CannotStart(`cannot listen on ${config.host}:${config.port} (TRACELIGHT_HOST, TRACELIGHT_EVALUATOR_PORT): ${e instanceof Error ? e.message : String(e)}`);
        });
  pool.start();
  log.info(
    {
      engine: config.database.engine,
      workers: config.scoringWorkers,
      owner,
      secret_key_id: keyId(secretKey),
      ...(probes !== undefined ? { host: config.host, port: probes.port } : {}),
    },
    'tracelight-evaluator scoring',
  );
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'stopping: finishing the jobs in hand');
    // /healthcheck answers 503 meanwhile; its server closes once the jobs in hand are done.
    void pool
      .stop(5_000)
      .then(() => probes?.close())
      .then(() => sandbox?.close())
      .then(() => engine.close())
      .then(
        () => {
          log.info({}, 'stopped');
          process.exit(0);
        },
        (e: unknown) => {
          log.error({ error: e instanceof Error ? e.message : String(e) }, 'closing the database failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
};

main().catch((e: unknown) => {
  const words = e instanceof CannotStart ? e.message : e instanceof Error ? (e.stack ?? e.message) : String(e);
  process.stderr.write(`tracelight-evaluator failed to start: ${words}\n`);
  process.exit(1);
});
