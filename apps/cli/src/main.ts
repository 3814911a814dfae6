#!/usr/bin/env node
// tracelight-admin: administer a Tracelight database directly, without the HTTP server.
import 'reflect-metadata';
import { ApiKeyCreateRequest, decodeBody } from '@tracelight/api-schema';
import { STORAGE_VARIABLES } from '@tracelight/config';
import { type ApiKeyId, type Principal, type ProjectId, type UserRole, USER_ROLES, asId, newUserProblem, normaliseEmail } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import type * as t from 'io-ts';
import * as O from 'fp-ts/Option';
import * as fs from 'node:fs';
import { buildCliContainer, environment, NoDatabase, NoSecretKey, SameSecretKeys } from './container';
import * as readline from 'node:readline';
import { exportProject, importProject } from './project-transfer';
import { inWords, notWritten, writeWhole } from './whole-file';

const USAGE = `tracelight-admin <command> [--flag value …]

  migrate                                      apply pending schema migrations, and say which (or that none was needed)
  create-user --email E --password P [--role R]  (roles: ${USER_ROLES.join(', ')})
  create-api-key --email E --description D [--expires-at ISO]   prints the key once
  list-api-keys --email E
  revoke-api-key --email E --id KEY_ID
  revoke-sessions --email E                    every token and refresh token signed in before now stops working
  export-project --email E --project PROJECT_ID [--out FILE]   JSON Lines (stdout without --out), ending with a closing line
  import-project --email E --in FILE [--resume] [--unverified]  ids kept: also moves a project between engines;
                                               a file without its closing line (cut short) is refused, nothing imported;
                                               --resume completes an import of the same file that was stopped midway;
                                               --unverified imports a v2 export (it has no closing line) as it is
  delete-project --email E --project PROJECT_ID  the project with its runs, their traces, spans, sessions and settings;
                                               no confirmation asked (export-project first to keep a copy)
  backup --out FILE                            SQLite: a consistent copy while the server runs (new file, 0600)
  reseal-secrets                               after a rotation of the secret key (TRACELIGHT_SECRET_KEY the new one,
                                               TRACELIGHT_PREVIOUS_SECRET_KEY the old): every user's gateway token
                                               sealed again under the new key, so that the old one can be dropped;
                                               exit 1 naming the users whose token neither key opens

Only create-user makes a new database where there is none (a first set-up); every other command refuses
a data dir or database URL with no database (exit 2), rather than make an empty one there.

The server's variables, read and checked as the server does (its --help says what each does):
  ${STORAGE_VARIABLES.map(([name]) => name).join(', ')}
  and TRACELIGHT_SECRET_KEY, TRACELIGHT_PREVIOUS_SECRET_KEY, TRACELIGHT_PASSWORD_COST. SQLite writes run on this thread: TRACELIGHT_SQLITE_WRITER does not apply.`;

/** Each command and the flags it takes: anything else is refused before the database is opened. */
const FLAGS: Readonly<Record<string, ReadonlyArray<string>>> = {
  migrate: [],
  'create-user': ['email', 'password', 'role'],
  'create-api-key': ['email', 'description', 'expires-at'],
  'list-api-keys': ['email'],
  'revoke-api-key': ['email', 'id'],
  'revoke-sessions': ['email'],
  'export-project': ['email', 'project', 'out'],
  'import-project': ['email', 'in', 'resume', 'unverified'],
  'delete-project': ['email', 'project'],
  backup: ['out'],
  'reseal-secrets': [],
};

/** The commands that mint or seal with the servers' secret key: refused where there is none, never given one of their own. */
const USES_KEY = new Set(['create-api-key', 'reseal-secrets']);

/** Flags that take no value: present or not. */
const SWITCHES = new Set(['resume', 'unverified']);

/**
 * What is wrong with the command line itself (a flag unknown, missing, given twice, or a value refused
 * before anything is opened): exit 2, as for an unknown command. Failures while acting exit 1.
 */
class UsageError extends Error {}

const flags = (args: ReadonlyArray<string>): Record<string, string> => {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < args.length) {
    const name = args[i] ?? '';
    const value = args[i + 1];
    // Given twice, one would be dropped unsaid: which one the caller meant is theirs to say.
    if (name.startsWith('--') && Object.hasOwn(out, name.slice(2))) throw new UsageError(`${name} is given twice`);
    if (name.startsWith('--') && SWITCHES.has(name.slice(2))) {
      out[name.slice(2)] = 'true';
      i += 1;
    } else if (name.startsWith('--') && value !== undefined) {
      out[name.slice(2)] = value;
      i += 2;
    } else throw new UsageError(`expected --flag value pairs, got ${JSON.stringify(args.slice(i))}`);
  }
  return out;
};

const need = (f: Record<string, string>, name: string): string => {
  const v = f[name];
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`);
  return v;
};

/** A flag's name for a field of the request it stands for (`expires_at` is `--expires-at`). */
const flagOf = (loc: ReadonlyArray<string | number>): string => `--${String(loc[0] ?? '').replace(/_/g, '-')}`;

/**
 * A domain error in words: `NotFound` names what was not found, the others carry a message, an `Invalid`
 * one after the flag it is about. `usage`: the error is the command line's (exit 2), not the action's.
 */
const fail = (what: unknown, usage = false): never => {
  const e = (typeof what === 'object' && what !== null ? what : {}) as { _tag?: unknown; message?: unknown; entity?: unknown; id?: unknown; path?: unknown };
  const Failure = usage ? UsageError : Error;
  if (e._tag === 'NotFound') throw new Failure(`no ${String(e.entity)} ${String(e.id)}`);
  const about = e._tag === 'Invalid' && Array.isArray(e.path) && e.path.length > 0 ? `${flagOf(e.path as Array<string | number>)}: ` : '';
  throw new Failure(e.message !== undefined ? `${about}${String(e.message)}` : JSON.stringify(what));
};

/**
 * The flags of a command that stands for an API request, checked by that request's own codec before
 * anything is opened: the CLI takes nothing the API would refuse (a description over 1,024 characters,
 * an expiry without its zone, which would be read in this host's).
 */
const asRequest = <A>(codec: t.Decoder<unknown, A>, fields: Readonly<Record<string, unknown>>): A => {
  const decoded = decodeBody(codec, fields);
  if (E.isRight(decoded)) return decoded.right;
  throw new UsageError(decoded.left.map((e) => `${flagOf(e.loc.slice(1))}: ${e.msg}`).join('; '));
};

/** A `write` of lines into `out`, waiting whenever it asks to (its buffer full), and the first error it had. */
const lineWriter = (out: NodeJS.WritableStream) => {
  // A failed write (the disk full) is an 'error' on the stream, which unheard would end the process
  // with a stack trace and leave the file half written: it is kept, and fails the next write or the end.
  let failed: Error | undefined;
  out.on('error', (e: Error) => (failed ??= e));
  const write = (line: string) =>
    new Promise<void>((resolve, reject) => {
      if (failed) return reject(failed);
      if (out.write(line)) return resolve();
      const drained = () => (out.off('error', errored), resolve());
      const errored = (e: Error) => (out.off('drain', drained), reject(e));
      out.once('drain', drained).once('error', errored);
    });
  return { write, failed: () => failed };
};

/**
 * Runs `produce` with a `write` of lines into `file` (standard output without one) and answers what it
 * answers. The file is written whole or not at all, and never over one that exists (writeWhole): an
 * export holds every input and output, and one that fails (no such project, a full disk) or is stopped
 * (Ctrl-C, SIGTERM) leaves neither `file` nor a temporary one.
 */
const exportTo = async <A>(file: string | undefined, produce: (write: (line: string) => Promise<void>) => Promise<A>): Promise<A> => {
  if (file === undefined) {
    try {
      return await produce(lineWriter(process.stdout).write);
    } catch (e) {
      throw inWords(e, 'standard output', 'the export is incomplete') ?? e;
    }
  }
  return writeWhole(file, 'export', async (partial) => {
    // The stream's own descriptor on the temporary file (made empty, 0600): closed by the stream,
    // which alone knows when its last write has ended.
    const out = fs.createWriteStream(partial, { flags: 'r+' });
    const lines = lineWriter(out);
    try {
      const done = await produce(lines.write);
      await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      const failed = lines.failed();
      if (failed) throw failed;
      return done;
    } catch (e) {
      // Written no more before the file is removed: its writes run on the thread pool.
      if (!out.closed)
        await new Promise<void>((resolve) => {
          out.once('close', () => resolve());
          if (!out.destroyed) out.destroy();
        });
      throw e;
    }
  });
};

const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const known = Object.hasOwn(FLAGS, command) ? FLAGS[command] : undefined;
  if (known === undefined) {
    process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
    return 2;
  }
  const f = flags(rest);
  // A misspelt flag would otherwise be ignored (`--rol admin` made a plain user).
  const unknown = Object.keys(f).filter((name) => !known.includes(name));
  if (unknown.length > 0) throw new UsageError(`${command} takes ${known.map((k) => `--${k}`).join(', ') || 'no flags'}; not ${unknown.map((k) => `--${k}`).join(', ')}`);
  // Checked before the database is opened, as the server checks them: a quota or URL mistyped is refused, not ignored.
  const settings = environment(process.env);
  if (E.isLeft(settings)) {
    process.stderr.write(`tracelight-admin: fix the configuration: ${settings.left.join('; ')}\n`);
    return 2;
  }
  // What create-user is given is checked first: a first set-up refused for a short password leaves no
  // new, empty database behind.
  if (command === 'create-user') {
    const role = f['role'] ?? 'user';
    if (!(USER_ROLES as ReadonlyArray<string>).includes(role)) return fail({ message: `--role must be one of ${USER_ROLES.join(', ')}` }, true);
    const problem = newUserProblem({ email: need(f, 'email'), password: need(f, 'password') });
    if (O.isSome(problem)) return fail(problem.value, true);
  }
  const newApiKey =
    command === 'create-api-key' ? asRequest(ApiKeyCreateRequest, { description: need(f, 'description'), expires_at: f['expires-at'] ?? null }) : undefined;
  // Only create-user makes a database where there is none (a first set-up, as the server's first start
  // does): anything else on a mistyped data dir or URL is refused, leaving nothing there.
  let app: Awaited<ReturnType<typeof buildCliContainer>>;
  try {
    app = await buildCliContainer(settings.right, { create: command === 'create-user', usesKey: USES_KEY.has(command) });
  } catch (e) {
    if (e instanceof NoSecretKey) {
      process.stderr.write(`tracelight-admin: ${e.message}. ${command} uses the servers' key: run it with their TRACELIGHT_SECRET_KEY, or their data dir (TRACELIGHT_DATA_DIR, where secret.key is)\n`);
      return 2;
    }
    if (e instanceof SameSecretKeys) {
      process.stderr.write(`tracelight-admin: ${e.message}\n`);
      return 2;
    }
    if (!(e instanceof NoDatabase)) throw e;
    process.stderr.write(
      `tracelight-admin: ${e.message}: check TRACELIGHT_DATA_DIR (or TRACELIGHT_DATABASE_URL). Only create-user makes a new database (a first set-up), as the server does on its first start\n`,
    );
    return 2;
  }
  if (app.created) process.stderr.write(`tracelight-admin: there was no database at ${app.where}: a new one was made\n`);
  try {
    /** Acts as the named user (the CLI is trusted with the database itself). */
    const as = async (email: string): Promise<Principal> => {
      const found = await app.users.findByEmail(normaliseEmail(email))();
      if (E.isLeft(found)) return fail(found.left);
      if (O.isNone(found.right)) return fail({ message: `no user ${email}` });
      const u = found.right.value;
      return { userId: u.id, email: u.email, role: u.role, scheme: 'basic', apiKeyId: null };
    };
    switch (command) {
      case 'migrate': {
        const n = await app.users.count()();
        if (E.isLeft(n)) return fail(n.left);
        for (const m of app.migrated) process.stdout.write(`applied migration ${m.version}: ${m.name}\n`);
        process.stdout.write(`${app.migrated.length === 0 ? 'no migration needed: ' : ''}schema up to date at version ${app.version} (${n.right} users)\n`);
        return 0;
      }
      case 'create-user': {
        const role = (f['role'] ?? 'user') as UserRole;
        const user = await app.identity.register({ email: need(f, 'email'), password: need(f, 'password'), role })();
        if (E.isLeft(user)) return fail(user.left);
        process.stdout.write(`${JSON.stringify({ id: user.right.id, email: user.right.email, role: user.right.role })}\n`);
        return 0;
      }
      case 'create-api-key': {
        const { description, expires_at } = newApiKey!;
        const created = await app.identity.createApiKey(await as(need(f, 'email')), { description, expiresAt: expires_at ?? null })();
        if (E.isLeft(created)) return fail(created.left);
        process.stdout.write(`${JSON.stringify({ id: created.right.key.id, api_key: created.right.secret, truncated: created.right.key.truncated })}\n`);
        return 0;
      }
      case 'list-api-keys': {
        const keys = await app.identity.listApiKeys(await as(need(f, 'email')))();
        if (E.isLeft(keys)) return fail(keys.left);
        for (const k of keys.right) process.stdout.write(`${JSON.stringify({ id: k.id, description: k.description, truncated: k.truncated, expires_at: k.expiresAt })}\n`);
        return 0;
      }
      case 'revoke-api-key': {
        const done = await app.identity.revokeApiKey(await as(need(f, 'email')), asId<ApiKeyId>(need(f, 'id')))();
        if (E.isLeft(done)) return fail(done.left);
        process.stdout.write('revoked\n');
        return 0;
      }
      case 'revoke-sessions': {
        const done = await app.identity.revokeSessions((await as(need(f, 'email'))).userId)();
        if (E.isLeft(done)) return fail(done.left);
        process.stdout.write('sessions revoked: sign-ins before now no longer work\n');
        return 0;
      }
      case 'export-project': {
        const owner = (await as(need(f, 'email'))).userId;
        const project = need(f, 'project');
        // On SQLite every page is read from one snapshot, so writes the server makes meanwhile neither
        // move records between pages nor half-appear; on MongoDB the export checks what it reads.
        const snapshot = app.readingOneSnapshot;
        const done = await exportTo(f['out'], (write) =>
          snapshot !== undefined
            ? snapshot(() => exportProject(app.repositories, owner, project, write))
            : exportProject(app.repositories, owner, project, write, { checkRepeats: true }),
        );
        if (f['out'] !== undefined) process.stdout.write(`exported ${done.runs} runs, ${done.records} records\n`);
        return 0;
      }
      case 'import-project': {
        const file = need(f, 'in');
        const lines = () => readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
        const importer = await as(need(f, 'email'));
        // An import that fails partway takes back the project it created, as delete-project would.
        const discard = async (project: ProjectId) => {
          const retired = await app.projects.delete(importer, project)();
          if (E.isLeft(retired)) return fail(retired.left);
          const purged = await app.projects.purge(project, { pause: (stepMs) => new Promise((resume) => setTimeout(resume, stepMs)) })();
          if (E.isLeft(purged)) return fail(purged.left);
        };
        const done = await importProject(app.repositories, importer.userId, lines, discard, { resume: f['resume'] === 'true', unverified: f['unverified'] === 'true' });
        const resumed = f['resume'] === 'true' ? `, of which ${done.written.runs} runs and ${done.written.records} records were missing and are written now (what was there is kept as it is)` : '';
        process.stdout.write(`imported ${done.runs} runs, ${done.records} records${resumed}\n`);
        return 0;
      }
      case 'delete-project': {
        const retired = await app.projects.delete(await as(need(f, 'email')), asId<ProjectId>(need(f, 'project')))();
        if (E.isLeft(retired)) return fail(retired.left);
        const project = retired.right;
        // Purged here, a step at a time, each followed by a pause as long as it took: a server writing to
        // the same SQLite file takes the lock in turn. Cut short, a server purges the rest as it starts.
        const purged = await app.projects.purge(project.id, { pause: (stepMs) => new Promise((resume) => setTimeout(resume, stepMs)) })();
        if (E.isLeft(purged)) return fail(purged.left);
        const { runs, records } = purged.right;
        process.stdout.write(`deleted project ${project.id} ${JSON.stringify(project.name)}: ${runs} runs, ${records} records, with their settings\n`);
        return 0;
      }
      case 'backup': {
        const backup = app.backup;
        if (!backup) {
          process.stderr.write('backup copies a SQLite database; on MongoDB use mongodump or your provider’s snapshots\n');
          return 2;
        }
        const out = need(f, 'out');
        // Copied by another process, which a signal ends at once (the copy cannot be interrupted otherwise).
        await writeWhole(out, 'backup', async (partial, onStop) => {
          const copy = backup(partial);
          onStop(() => copy.stop());
          try {
            await copy.done;
          } catch (e) {
            // Its code kept: a full disk or a file too large is said in the system's words (writeWhole).
            const code = (e as { code?: unknown }).code;
            throw Object.assign(new Error(`the database could not be copied (${e instanceof Error ? e.message : String(e)}): ${notWritten('backup')}`), { code });
          }
        });
        process.stdout.write(`backed up to ${out} (${fs.statSync(out).size} bytes); keep the secret key (secret.key in the data dir, or TRACELIGHT_SECRET_KEY) safe apart from it: without the key the copy's API keys, tokens and gateway secrets cannot be used\n`);
        return 0;
      }
      case 'reseal-secrets': {
        const done = await app.integrations.resealSecrets()();
        if (E.isLeft(done)) return fail(done.left);
        const { resealed, current, changedMeanwhile, unopenable } = done.right;
        const kept = changedMeanwhile > 0 ? `; ${changedMeanwhile} set again by their owners meanwhile (kept as they set them)` : '';
        // The keys by their ids, as each server's start line gives them: a swapped or mistyped key shows here.
        const { secretKeyId, previousSecretKeyId } = app.keyIds;
        const keys = `secret_key_id ${secretKeyId}${previousSecretKeyId !== undefined ? `, previous_secret_key_id ${previousSecretKeyId}` : ''}`;
        process.stdout.write(`sealed ${resealed} ${resealed === 1 ? 'secret' : 'secrets'} anew under the current key; ${current} already ${current === 1 ? 'was' : 'were'}${kept} (keys: ${keys})\n`);
        if (unopenable.length === 0) return 0;
        const previous = settings.right.previousSecretKey === undefined ? ' (TRACELIGHT_PREVIOUS_SECRET_KEY is not set)' : '';
        process.stderr.write(`tracelight-admin: ${unopenable.length} ${unopenable.length === 1 ? 'secret opens' : 'secrets open'} under neither key${previous}: their owners must set them again (PUT the integration):\n`);
        for (const { id, owner, provider } of unopenable) {
          const user = await app.users.findById(owner)();
          const email = E.isRight(user) && O.isSome(user.right) ? user.right.value.email : `user ${owner}`;
          process.stderr.write(`  ${email}: ${provider} integration ${id}\n`);
        }
        return 1;
      }
      default:
        process.stderr.write(`unknown command ${command}\n${USAGE}\n`);
        return 2;
    }
  } finally {
    await app.close();
  }
};

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`tracelight-admin: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(e instanceof UsageError ? 2 : 1);
  },
);
