// A started server plus the steps every black-box suite needs: sign in, make keys, projects and runs.
// Set-up goes through the typed client (packages/client); assertions use raw HTTP (`call`), where the
// exact status, headers and body are what is under test.
import { TracelightClient } from '@tracelight/client';
import { type Auth, http, type Reply } from './http';
import { ADMIN, type RunningServer, startServer } from './server';

export interface World {
  readonly server: RunningServer;
  /** The typed client, signed in as the admin. */
  readonly client: TracelightClient;
  readonly call: ReturnType<typeof http>;
  /** The admin's bearer token. */
  readonly admin: Auth;
  readonly adminToken: string;
  login(email: string, password: string): Promise<string>;
  apiKey(auth: Auth): Promise<string>;
  user(email: string, password?: string): Promise<{ auth: Auth; id: string; token: string }>;
  project(auth: Auth, name?: string): Promise<string>;
  run(auth: Auth, projectId: string, kind: 'log_streams' | 'experiments', name?: string): Promise<string>;
  ok<T = any>(reply: Reply<T>): T;
  /**
   * Resolves once the server's access-log line for `reply` (found by its X-Request-Id) is in
   * `server.output`. Lines on stdout arrive in order, so every line logged before it is there too.
   */
  logged(reply: Reply): Promise<void>;
  /**
   * Resolves once the server's log says the deleted project is purged (ProjectPurge: the line comes
   * after the last step commits); the purge runs in the background after the DELETE is answered.
   */
  purged(projectId: string): Promise<void>;
}

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now()}-${++counter}`;

export const startWorld = async (env: Record<string, string> = {}): Promise<World> => {
  const server = await startServer(env);
  const call = http(server.baseUrl);
  const ok = <T>(reply: Reply<T>): T => {
    if (reply.status !== 200) throw new Error(`expected 200, got ${reply.status}: ${reply.text}`);
    return reply.body;
  };
  const login = async (email: string, password: string) =>
    ok(await call('POST', '/login', { form: { username: email, password } })).access_token as string;
  const adminToken = await login(ADMIN.email, ADMIN.password);
  const admin: Auth = { bearer: adminToken };
  const client = new TracelightClient(server.baseUrl, { bearer: adminToken });
  /** The client acting with the given credentials. */
  const as = (auth: Auth) =>
    new TracelightClient(
      server.baseUrl,
      'bearer' in auth ? { bearer: auth.bearer } : 'apiKey' in auth ? { apiKey: auth.apiKey } : 'basic' in auth ? { basic: auth.basic } : { bearer: '' },
    );
  return {
    server,
    client,
    call,
    admin,
    adminToken,
    login,
    ok,
    logged: async (reply) => {
      const requestId = reply.headers.get('x-request-id');
      if (!requestId) throw new Error(`the reply carries no X-Request-Id (status ${reply.status})`);
      await server.waitForOutput(`"request_id":${JSON.stringify(requestId)}`);
    },
    purged: async (projectId) => {
      await server.waitForOutput(`"message":"deleted project purged","project_id":${JSON.stringify(projectId)}`, 30_000);
    },
    apiKey: async (auth) => (await as(auth).createApiKey({ description: 'test key' })).api_key,
    user: async (email, password = 'another secret password') => {
      const created = await client.createUser({ email, password });
      const token = await login(email, password);
      return { auth: { bearer: token }, id: created.id, token };
    },
    project: async (auth, name = unique('project')) => (await as(auth).createProject({ name })).id,
    run: async (auth, projectId, kind, name = unique('run')) =>
      (kind === 'log_streams' ? await as(auth).createLogStream(projectId, name) : await as(auth).createExperiment(projectId, name)).id,
  };
};
