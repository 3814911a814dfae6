// Ended sessions' refresh families are removed, and only they: the server's own container on a real
// SQLite file, its clock the test's. A family is kept past its session's end as long as an access token
// lives (TRACELIGHT_TOKEN_TTL_SECONDS), so that those of a revoked session stay refused until they expire.
import { type RefreshFamilyId, asId } from '@tracelight/domain';
import { Clock, RefreshFamilyRepository } from '@tracelight/ports';
import { FixedClock, recordingLogger, right } from '@tracelight/testkit';
import { IdentityUseCases } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadConfig } from './config';
import { buildContainer } from './container';
import { RefreshFamilySweep } from './refresh-family-sweep';

/** The refresh family a refresh token names. */
const familyOf = (token: string | undefined) =>
  asId<RefreshFamilyId>((JSON.parse(Buffer.from(token?.split('.')[1] ?? '', 'base64url').toString('utf8')) as { fid: string }).fid);

it('removes the families of sessions ended longer ago than an access token lives, batch by batch, and keeps the others', async () => {
  const config = loadConfig({
    TRACELIGHT_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-refresh-sweep-')),
    TRACELIGHT_SQLITE_WRITER: 'inline',
    TRACELIGHT_OFFLOAD_WORKERS: '0',
    TRACELIGHT_TOKEN_TTL_SECONDS: '600',
    TRACELIGHT_REFRESH_TOKEN_TTL_SECONDS: '3600',
  });
  if (E.isLeft(config)) throw new Error(config.left.join('; '));
  const logger = recordingLogger();
  const { container, storage } = await buildContainer(config.right, logger);
  const clock = new FixedClock(new Date());
  container.rebindSync<Clock>(Clock).toConstantValue(clock);
  await storage.open();
  try {
    const identity = container.get(IdentityUseCases);
    const families = container.get<RefreshFamilyRepository>(RefreshFamilyRepository);
    await right(identity.register({ email: 'sweep@example.com', password: 'long enough', role: 'user' }));
    const signIn = async () => familyOf((await right(identity.login('sweep@example.com', 'long enough'))).refresh?.token);
    const ended = [await signIn(), await signIn(), await signIn()];
    clock.advance(1_000);
    const later = await signIn();
    // The first three sessions ended an hour after they began, and an access token's life has passed since…
    clock.advance(3_600_000 + 600_000);
    const sweep = new RefreshFamilySweep(identity, logger, { batch: 2 });
    sweep.start();
    for (let waited = 0; logger.lines.length === 0 && waited < 60_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await sweep.stop();
    expect(logger.lines).toEqual([{ level: 'info', fields: { removed: 3 }, message: 'removed the refresh families of ended sessions' }]);
    for (const id of ended) expect(await right(families.findById(id))).toEqual(O.none);
    // …the fourth ended 1 s later: not yet.
    expect(O.isSome(await right(families.findById(later)))).toBe(true);
    expect(await right(identity.removeEndedFamilies(10))).toEqual({ removed: 0, done: true });
    clock.advance(1_000);
    expect(await right(identity.removeEndedFamilies(10))).toEqual({ removed: 1, done: true });
  } finally {
    await storage.close();
  }
});
