// A wrong password costs a known user what it costs an unknown email (the decoy, at the current cost),
// whatever cost their hash was made at: the server's own container on a real SQLite file, its scrypt
// hasher counting the checks it runs, at each cost.
import { ScryptPasswordHasher } from '@tracelight/credentials';
import { UserRepository } from '@tracelight/ports';
import { aUser, right } from '@tracelight/testkit';
import { IdentityUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from './config';
import { buildContainer } from './container';

const silent = { info: () => undefined, error: () => undefined };

class CountingScrypt extends ScryptPasswordHasher {
  /** The N of each check run, in order. */
  checks: number[] = [];
  override verify(password: string, hash: string): Promise<boolean> {
    this.checks.push(Number(hash.split('$')[1]));
    return super.verify(password, hash);
  }
}

it('makes up a failed check of a known user’s cheaper or unreadable hash to one at the current cost, and adds nothing for unknown emails or right passwords', async () => {
  const config = loadConfig({
    TRACELIGHT_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-password-harden-')),
    TRACELIGHT_SQLITE_WRITER: 'inline',
    TRACELIGHT_OFFLOAD_WORKERS: '0',
    TRACELIGHT_PASSWORD_COST: '15',
    TRACELIGHT_PASSWORD_CACHE_TTL_SECONDS: '0',
  });
  if (E.isLeft(config)) throw new Error(config.left.join('; '));
  const { container, storage } = await buildContainer(config.right, silent);
  const scrypt = new CountingScrypt({ passwordCost: 15 });
  container.rebindSync(ScryptPasswordHasher).toConstantValue(scrypt);
  await storage.open();
  try {
    const identity = container.get(IdentityUseCases);
    const users = container.get<UserRepository>(UserRepository);
    const cheap = await right(users.insert(aUser({ passwordHash: await new ScryptPasswordHasher({ passwordCost: 14 }).hash('the password') })));
    const unreadable = await right(users.insert(aUser({ passwordHash: 'scrypt$-1$8$1$c2FsdA$aGFzaA' })));
    const current = await right(users.insert(aUser({ passwordHash: await scrypt.hash('the password') })));
    const checksOf = async (email: string, password: string) => {
      scrypt.checks = [];
      await identity.login(email, password)();
      return scrypt.checks;
    };
    // The decoy made first (one hash, no check), so that each login below counts its checks alone.
    await checksOf('nobody@example.com', 'x');
    expect(await checksOf('nobody@example.com', 'wrong')).toEqual([32768]);
    expect(await checksOf(current.email, 'wrong')).toEqual([32768]);
    expect(await checksOf(cheap.email, 'wrong')).toEqual([16384, 16384]);
    // Not checkable at all: verify refuses it without scrypt, and one check at the current cost stands in.
    expect(await checksOf(unreadable.email, 'wrong')).toEqual([-1, 32768]);
    expect(await checksOf(current.email, 'the password')).toEqual([32768]);
  } finally {
    await storage.close();
  }
});
