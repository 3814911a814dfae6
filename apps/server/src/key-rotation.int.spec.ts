// A rotation of the master key, seen from two server processes on one SQLite file (each its own
// container and connection): both take an API key stored under the old key's hash at once, one moves
// it to the new hash and the other, finding it moved, reads it there; a key revoked meanwhile stays out.
import { HttpMetrics } from '@tracelight/http-koa';
import type { Principal } from '@tracelight/domain';
import { ApiKeyMinter, ApiKeyRepository } from '@tracelight/ports';
import { right } from '@tracelight/testkit';
import { IdentityUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from './config';
import { buildContainer } from './container';

const silent = { info: () => undefined, error: () => undefined };
const OLD = randomBytes(32).toString('hex');
const NEW = randomBytes(32).toString('hex');

it('moves a key once when two processes take it at once, and never brings back one revoked meanwhile', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-rotation-int-'));
  const open = async (env: Record<string, string>, metrics = new HttpMetrics()) => {
    const config = loadConfig({ TRACELIGHT_DATA_DIR: dataDir, TRACELIGHT_SQLITE_WRITER: 'inline', TRACELIGHT_OFFLOAD_WORKERS: '0', ...env });
    if (E.isLeft(config)) throw new Error(config.left.join('; '));
    const { container, storage } = await buildContainer(config.right, silent, metrics);
    await storage.open();
    return { container, storage, identity: container.get(IdentityUseCases), keys: container.get<ApiKeyRepository>(ApiKeyRepository) };
  };

  const before = await open({ TRACELIGHT_SECRET_KEY: OLD });
  const user = await right(before.identity.register({ email: 'rotating@example.com', password: 'long enough', role: 'user' }));
  const principal: Principal = { userId: user.id, email: user.email, role: user.role, scheme: 'bearer', apiKeyId: null };
  const used = await right(before.identity.createApiKey(principal, { description: 'used', expiresAt: null }));
  const revoked = await right(before.identity.createApiKey(principal, { description: 'revoked', expiresAt: null }));
  await before.storage.close();

  // Both processes time their storage calls into one registry: it counts the moves they attempt.
  const metrics = new HttpMetrics();
  const during = { TRACELIGHT_SECRET_KEY: NEW, TRACELIGHT_PREVIOUS_SECRET_KEY: OLD };
  const [a, b] = [await open(during, metrics), await open(during, metrics)];
  try {
    const newHash = a.container.get<ApiKeyMinter>(ApiKeyMinter).hashOf(used.secret);
    const presented = { scheme: 'api_key', apiKey: used.secret } as const;
    const [viaA, viaB] = await Promise.all([a.identity.authenticate(presented)(), b.identity.authenticate(presented)()]);
    expect([viaA, viaB]).toEqual([E.right(expect.objectContaining({ userId: user.id })), E.right(expect.objectContaining({ userId: user.id }))]);
    // Both tried to move it; the compare-and-set let one, and the other read it under the new hash.
    expect(await metrics.registry.metrics()).toMatch(/tracelight_storage_operation_duration_seconds_count\{repository="apiKeys",operation="rehash",outcome="ok"\} 2\n/);
    expect(await right(a.keys.findByHash(used.key.keyHash))).toEqual(O.none);
    expect(await right(a.keys.findByHash(newHash))).toEqual(O.some(expect.objectContaining({ id: used.key.id, keyHash: newHash })));

    // Revoked by one process; the other, never having seen the key, does not find it under either hash.
    await right(a.keys.revoke(user.id, revoked.key.id));
    expect(await b.identity.authenticate({ scheme: 'api_key', apiKey: revoked.secret })()).toEqual(E.left(expect.objectContaining({ _tag: 'Unauthorized' })));
  } finally {
    await a.storage.close();
    await b.storage.close();
  }
});
