// No silent dead ends at the first start: a server nobody can sign in to says how to make the first admin,
// and first-admin variables that made nothing (the database has users) say why. Real server, real admin CLI.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { http } from '../support/http';
import { type RunningServer, startServer } from '../support/server';

const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../apps/cli/dist/main.js');
const NO_ADMIN = { TRACELIGHT_ADMIN_EMAIL: '', TRACELIGHT_ADMIN_PASSWORD: '' };
const FIRST = { TRACELIGHT_ADMIN_EMAIL: 'first@example.com', TRACELIGHT_ADMIN_PASSWORD: 'the first password' };

const signIn = async (server: RunningServer, username: string, password: string) =>
  (await http(server.baseUrl)('POST', '/login', { form: { username, password } })).status;
/** The server's warn lines (stderr), once it has answered a request: what its start had to say is out by then. */
const warnings = (server: RunningServer) => server.output.filter((l) => l.includes('"level":"warn"')).map((l) => (JSON.parse(l) as { message: string }).message);

/** Starts a server on `dataDir` with `env`, runs `body`, and stops it whatever happens. */
const withServer = async (env: Record<string, string>, dataDir: string, body: (server: RunningServer) => Promise<void>) => {
  const server = await startServer(env, dataDir);
  try {
    await body(server);
  } finally {
    await server.stop();
  }
};

describe('a server with no user', () => {
  it('says how to create the first admin, and takes the admin the CLI then creates while it runs', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-no-admin-'));
    await withServer(NO_ADMIN, dataDir, async (server) => {
      const line = await server.waitForOutput('No user yet', 60_000);
      expect(JSON.parse(line)).toMatchObject({ level: 'warn' });
      expect(line).toContain('TRACELIGHT_ADMIN_EMAIL and TRACELIGHT_ADMIN_PASSWORD');
      expect(line).toContain('node apps/cli/dist/main.js create-user --email <email> --password <password> --role admin');
      // The advice, followed word for word, works on the running server.
      await run(process.execPath, [CLI, 'create-user', '--email', 'ops@example.com', '--password', 'ops password', '--role', 'admin'], {
        env: { PATH: process.env['PATH'] ?? '', ...server.storageEnv },
      });
      expect(await signIn(server, 'ops@example.com', 'ops password')).toBe(200);
    });
    // Now that there is a user, a start without the variables says nothing of it.
    await withServer(NO_ADMIN, dataDir, async (server) => {
      expect(await signIn(server, 'ops@example.com', 'ops password')).toBe(200);
      expect(warnings(server)).toEqual([]);
    });
  });
});

describe('first-admin variables on a database that has users', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-admin-vars-'));
  beforeAll(() =>
    withServer(FIRST, dataDir, async (server) => {
      await server.waitForOutput('created the first admin', 60_000);
      expect(warnings(server)).toEqual([]);
    }),
  );

  it('say only that the admin exists when they name it by its own password', () =>
    withServer(FIRST, dataDir, async (server) => {
      expect(await signIn(server, FIRST.TRACELIGHT_ADMIN_EMAIL, FIRST.TRACELIGHT_ADMIN_PASSWORD)).toBe(200);
      // The check runs behind the requests, and says when it is done.
      expect(JSON.parse(await server.waitForOutput('the first admin exists already', 60_000))).toMatchObject({ level: 'info', email: 'first@example.com' });
      expect(warnings(server)).toEqual([]);
    }));

  it('say that another password was ignored, which stays refused while the admin keeps its own', () =>
    withServer({ ...FIRST, TRACELIGHT_ADMIN_PASSWORD: 'another password' }, dataDir, async (server) => {
      const line = await server.waitForOutput('TRACELIGHT_ADMIN_PASSWORD was ignored', 60_000);
      expect(JSON.parse(line)).toMatchObject({ level: 'warn', email: 'first@example.com' });
      expect(line).toContain('first@example.com exists already, with another password');
      expect(line).not.toContain('another password"');
      expect(await signIn(server, 'first@example.com', 'another password')).toBe(401);
      expect(await signIn(server, 'first@example.com', FIRST.TRACELIGHT_ADMIN_PASSWORD)).toBe(200);
    }));

  it('say that both were ignored when the email is no user', () =>
    withServer({ TRACELIGHT_ADMIN_EMAIL: 'second@example.com', TRACELIGHT_ADMIN_PASSWORD: 'second password' }, dataDir, async (server) => {
      const line = await server.waitForOutput('TRACELIGHT_ADMIN_EMAIL and TRACELIGHT_ADMIN_PASSWORD were ignored', 60_000);
      expect(line).toContain('second@example.com is not one of them');
      expect(line).toContain('create-user --email second@example.com');
      expect(await signIn(server, 'second@example.com', 'second password')).toBe(401);
    }));
});
