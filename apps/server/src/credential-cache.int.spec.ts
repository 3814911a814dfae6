// What the server remembers of a credential lasts TRACELIGHT_CREDENTIAL_CACHE_MS of time passing, on the
// monotonic clock: a wall clock set back (NTP stepping it, a VM resumed) does not stretch it. The
// server's own container on a real SQLite file, its clock the test's.
import type { Principal } from '@tracelight/domain';
import { ApiKeyRepository, Clock } from '@tracelight/ports';
import { FixedClock, right } from '@tracelight/testkit';
import { IdentityUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from './config';
import { buildContainer } from './container';

const silent = { info: () => undefined, error: () => undefined };

it('a key revoked by another process stops working once the cache time has passed, though the wall clock was set back meanwhile', async () => {
  const config = loadConfig({
    TRACELIGHT_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-credential-cache-')),
    TRACELIGHT_SQLITE_WRITER: 'inline',
    TRACELIGHT_OFFLOAD_WORKERS: '0',
    TRACELIGHT_CREDENTIAL_CACHE_MS: '2000',
  });
  if (E.isLeft(config)) throw new Error(config.left.join('; '));
  const { container, storage } = await buildContainer(config.right, silent);
  const clock = new FixedClock(new Date());
  container.rebindSync<Clock>(Clock).toConstantValue(clock);
  await storage.open();
  try {
    const identity = container.get(IdentityUseCases);
    const user = await right(identity.register({ email: 'cached@example.com', password: 'long enough', role: 'user' }));
    const principal: Principal = { userId: user.id, email: user.email, role: user.role, scheme: 'bearer', apiKeyId: null };
    const { key, secret } = await right(identity.createApiKey(principal, { description: 'cached', expiresAt: null }));
    const presented = { scheme: 'api_key', apiKey: secret } as const;
    expect((await right(identity.authenticate(presented))).userId).toBe(user.id);
    // Revoked by another process (the admin CLI, another server): straight in the database, unknown here.
    await right(container.get<ApiKeyRepository>(ApiKeyRepository).revoke(user.id, key.id));
    clock.advance(1_000);
    expect(E.isRight(await identity.authenticate(presented)())).toBe(true); // still remembered
    // The wall clock set an hour back, then the rest of the cache time passes.
    clock.setWallClock(new Date(clock.now().getTime() - 3_600_000));
    clock.advance(1_001);
    expect(await identity.authenticate(presented)()).toEqual(E.left(expect.objectContaining({ _tag: 'Unauthorized' })));
  } finally {
    await storage.close();
  }
});
