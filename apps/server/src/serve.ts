// Serves once the configuration is read and the storage engine started (main.ts): builds the container,
// opens the storage, listens, makes the first admin, and stops cleanly on SIGTERM or SIGINT.
import { IdentityUseCases, ProjectUseCases, RetentionUseCases } from '@tracelight/use-cases';
import { normaliseEmail } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import { createServer, type Server } from 'node:http';
import type { ServerConfig } from './config';
import { HttpApp, HttpMetrics } from '@tracelight/http-koa';
import { CodeSandbox } from '@tracelight/ports';
import { closingAnswers, Connections } from './connections';
import { buildContainer } from './container';
import type { Engine } from './engine';
import { exit } from './exit';
import { answerRefusals, defaultMaxConnections, limitConnections } from './refusals';
import { ProjectPurge } from './project-purge';
import { RetentionSweep } from './retention';
import { RefreshFamilySweep } from './refresh-family-sweep';
import { walLeftBehind } from './wal-left';
import { countDroppedLogLines, flushLogs, jsonLogger as logger } from './logger';
import { scoringWorkers, watchScoringQueue } from './scoring';

/** The longest scoring workers finish the jobs in hand once stopping (never longer than the clients' grace). */
const SCORING_GRACE_MS = 3_000;
/** How often Node looks for requests past their headers or request timeout. */
const CONNECTIONS_CHECKING_MS = 1_000;
/** How much later than the headers timeout a connection's idle timeout comes: more than one check apart. */
const HEADERS_CHECK_MARGIN_MS = CONNECTIONS_CHECKING_MS + 500;
/** How often answers are looked at for clients that stopped reading them (Connections). */
const UNREAD_CHECKING_MS = 500;

/** How the first admin is made, told in the admin CLI's words (as the Docker image names it, tracelight-admin). */
const CREATE_ADMIN =
  'start the server with TRACELIGHT_ADMIN_EMAIL and TRACELIGHT_ADMIN_PASSWORD set (used only while the database has no user), or, while it runs, ' +
  'node apps/cli/dist/main.js create-user --email <email> --password <password> --role admin (tracelight-admin in the Docker image), with the same TRACELIGHT_DATA_DIR or TRACELIGHT_DATABASE_URL';

/**
 * Makes the first admin the variables name, on a database without users (a failure ends the start). Where
 * there is no user and no such variables, or where the variables made nothing, the log says so and what to
 * do: a server nobody can sign in to, or a password that was not taken, is otherwise a silent dead end.
 * Which of the last two it is needs the password checked (as long as a sign-in takes): the check is
 * returned, to run once the server listens.
 */
const firstAdmin = async (identity: IdentityUseCases, cfg: ServerConfig): Promise<(() => void) | undefined> => {
  if (cfg.adminEmail === undefined || cfg.adminPassword === undefined) {
    const users = await identity.userCount()();
    if (E.isRight(users) && users.right === 0) logger.warn({}, `No user yet, so nobody can sign in. To create the first admin, ${CREATE_ADMIN}.`);
    return undefined;
  }
  const admin = await identity.bootstrapAdmin(cfg.adminEmail, cfg.adminPassword)();
  if (E.isLeft(admin)) exit(2, `Tracelight cannot create the first admin: ${JSON.stringify(admin.left)}\n`);
  if (O.isSome(admin.right)) {
    logger.info({ email: admin.right.value.email }, 'created the first admin');
    return undefined;
  }
  const email = normaliseEmail(cfg.adminEmail);
  const password = cfg.adminPassword;
  return () => void identity.adminVariablesOutcome(email, password)().then((outcome) => {
    if (E.isLeft(outcome)) return;
    if (outcome.right === 'kept') logger.info({ email }, 'the first admin exists already: the variables name it, by its own password');
    else if (outcome.right === 'password-ignored')
      logger.warn(
        { email },
        `TRACELIGHT_ADMIN_PASSWORD was ignored: ${email} exists already, with another password, and the variables only create the first admin, on a database without users. Sign in with the password it has; for another admin, use the admin CLI: node apps/cli/dist/main.js create-user --email <email> --password <password> --role admin.`,
      );
    else
      logger.warn(
        { email },
        `TRACELIGHT_ADMIN_EMAIL and TRACELIGHT_ADMIN_PASSWORD were ignored: the database has users already, and ${email} is not one of them; the variables only create the first admin, on a database without users. To add an admin, use the admin CLI: node apps/cli/dist/main.js create-user --email ${email} --password <password> --role admin.`,
      );
  });
};

/** Builds the container on the storage `engine` (started already), opens the storage, listens and serves until a signal stops it. */
export const serve = async (cfg: ServerConfig, engine: Engine): Promise<void> => {
  // Writes that queue scoring jobs wake this process's idle workers (built once storage is open).
  let wakeScoring = (): void => undefined;
  const { container, storage, keyIds } = await buildContainer(cfg, logger, new HttpMetrics(), () => wakeScoring(), engine);
  const metrics = container.get(HttpMetrics);
  countDroppedLogLines((stream, lines) => metrics.droppedLogLines.inc({ stream }, lines));
  await storage.open();

  watchScoringQueue(container, metrics);
  const scoring = scoringWorkers(container, cfg, logger, metrics);
  if (scoring !== undefined) wakeScoring = () => scoring.wake();

  // Before listening: a sign-in sent as soon as the server says it listens finds the admin.
  const checkAdminVariables = await firstAdmin(container.get(IdentityUseCases), cfg);

  const app = container.get(HttpApp).build();
  // Node looks for requests past their timeouts every `connectionsCheckingInterval` (30 s by default), so a
  // client trickling its headers or body was cut off up to 30 s after TRACELIGHT_REQUEST_TIMEOUT_MS: each second instead.
  const answers = closingAnswers();
  const server: Server = createServer(
    { connectionsCheckingInterval: CONNECTIONS_CHECKING_MS, ServerResponse: answers.Response },
    app.callback(),
  ).listen(cfg.port, cfg.host);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = cfg.requestTimeoutMs;
  server.headersTimeout = Math.min(cfg.requestTimeoutMs, 60_000);
  // A connection on which no byte moves for this long times out (what then happens: Connections): a little
  // later than the headers timeout, which Node checks only each `connectionsCheckingInterval`. Of the same
  // length, the idle timeout won for a client that stalled mid-headers, closing it unanswered, unlogged and
  // uncounted, where the headers timeout answers 408 (and `answerRefusals` logs and counts it).
  server.timeout = cfg.requestTimeoutMs + HEADERS_CHECK_MARGIN_MS;
  const retention = new RetentionSweep(container.get(RetentionUseCases), logger, (n) => metrics.retentionRemoved.inc(n), {
    keepDays: cfg.retentionDays,
  });
  const purge = new ProjectPurge(container.get(ProjectUseCases), logger, (n) => metrics.purgedRecords.inc(n));
  const endedSessions = new RefreshFamilySweep(container.get(IdentityUseCases), logger);
  server.on('listening', () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : cfg.port;
    logger.info(
      {
        host: cfg.host,
        port,
        engine: cfg.database.engine,
        secret_key_id: keyIds.secretKeyId,
        ...(keyIds.previousSecretKeyId !== undefined ? { previous_secret_key_id: keyIds.previousSecretKeyId } : {}),
      },
      `Tracelight listening on http://${cfg.host}:${port}`,
    );
    // The address a person opens, said once on its own line.
    if (container.get(HttpApp).consoleServed) logger.info({ url: `http://${cfg.host}:${port}/console/` }, `Console at http://${cfg.host}:${port}/console/`);
    else logger.info({}, 'The console is not built (pnpm build builds it): /console answers 404');
    retention.start();
    purge.start();
    endedSessions.start();
    scoring?.start();
    checkAdminVariables?.();
    // Listening comes first; the threads that take work off this one start behind it (Storage.open).
    storage.warmed().then(
      () => logger.info({ took_ms: Math.round(performance.now()) }, 'worker threads started'),
      (e: unknown) => logger.error({ error: e instanceof Error ? e.message : String(e) }, 'a worker thread could not start: it is tried again; meanwhile its work runs elsewhere or waits'),
    );
  });
  server.on('error', (e) => {
    exit(1, `Tracelight cannot listen on ${cfg.host}:${cfg.port}: ${e.message}\n`);
  });

  // `Expect: 100-continue`: the client waits for a go-ahead before it sends its body. Node gives it at once,
  // even to a request about to be refused (no credentials, a body too large); here it goes when the body is
  // first read, so a refusal costs the client no upload (Node then closes the connection, the body unsent).
  server.on('checkContinue', (req, res) => {
    req.once('resume', () => {
      if (!res.headersSent) res.writeContinue();
    });
    server.emit('request', req, res);
  });
  answerRefusals(server, logger, metrics);
  limitConnections(server, cfg.maxConnections ?? defaultMaxConnections(), logger, metrics);
  // An answer its client stopped reading is dropped once nothing of it has moved for the idle timeout less
  // two looks (the request timeout and 0.5 s), looked at twice a second: between 0.5 and 1.5 s more than
  // the request timeout after the system last took more of it, as TRACELIGHT_REQUEST_TIMEOUT_MS says.
  const connections = new Connections(server, logger, {
    unreadAnswerMs: server.timeout - 2 * UNREAD_CHECKING_MS,
    checkingMs: UNREAD_CHECKING_MS,
  });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    // While stopping, each answer closes its connection: a keep-alive client (every SDK's) would
    // otherwise go on sending requests on it, and the server would never finish closing.
    answers.close();
    const began = Date.now();
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    /** What the stop waits for, said by the forced exit. */
    let waitingFor = 'in-flight requests';
    // Scoring workers finish the jobs in hand within a grace; those left are claimed again after their leases.
    // Then the code scorers' interpreters end (no job is left to call them).
    const swept = Promise.all([retention.stop(), purge.stop(), endedSessions.stop(), scoring?.stop(Math.min(SCORING_GRACE_MS, cfg.shutdownClientGraceMs))]).then(() =>
      container.isBound(CodeSandbox) ? container.get<CodeSandbox>(CodeSandbox).close() : undefined,
    );
    server.close(() => {
      waitingFor = 'the database to close';
      void swept
        .catch(() => undefined)
        .then(() => storage.close())
        .then(
          () => {
            stopped(Date.now() - began);
            return 0;
          },
          (e: unknown) => {
            logger.error({ error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, 'closing the database failed');
            return 1;
          },
        )
        .then((code) => flushLogs().finally(() => process.exit(code)));
    });
    // Connections without a request being answered close now; those that go idle between requests, as they do.
    connections.closeIdle();
    setInterval(() => connections.closeIdle(), 100).unref();
    // A request that still waits on its client after the grace is given up on, so that a client that
    // stops sending or reading does not hold the server past its forced exit.
    setTimeout(() => {
      const cut = connections.closeWaitingOnClients();
      if (cut > 0)
        logger.warn(
          { after_ms: cfg.shutdownClientGraceMs, cut_requests: cut },
          `shutdown: ${cut} request(s) still waiting on their clients cut off after ${cfg.shutdownClientGraceMs / 1000} s`,
        );
      setInterval(() => connections.closeWaitingOnClients(), 100).unref();
    }, cfg.shutdownClientGraceMs).unref();
    setTimeout(() => {
      const unanswered = connections.unanswered();
      logger.error(
        { after_ms: cfg.shutdownTimeoutMs, waiting_for: waitingFor, unanswered_requests: unanswered },
        `shutdown forced after ${cfg.shutdownTimeoutMs / 1000} s, still waiting for ${waitingFor}: ${unanswered} request(s) left unanswered`,
      );
      exit(1);
    }, cfg.shutdownTimeoutMs).unref();
  };
  /** The last line of a clean stop; on SQLite, first an error line if the write-ahead log could not be moved into the file. */
  const stopped = (tookMs: number) => {
    if (cfg.database.engine === 'sqlite') {
      const left = walLeftBehind(cfg.database.path);
      // At error level (the logger has no warn): an operator copying the file alone would lose data.
      if (left)
        logger.error(
          { ...left, database: cfg.database.path },
          `the database closed, but its write-ahead log ${left.wal} was left beside it: ${left.reason}. Nothing in it is lost (the next start takes it in), but until then copy or back up both files together, never the database file alone`,
        );
    }
    logger.info({ took_ms: tookMs }, 'stopped: the database is closed');
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
};

