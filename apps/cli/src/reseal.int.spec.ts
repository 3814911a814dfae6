// resealSecrets on a real SQLite file, with a user setting their token again between the pass's read
// and its write: the compare-and-set keeps theirs.
import { AesGcmSecretSealer, SystemClock, TimeOrderedUuid4IdGenerator } from '@tracelight/credentials';
import { type Principal, type UserId, asId, rekeyedId } from '@tracelight/domain';
import { SqliteDatabase, sqliteRepositories } from '@tracelight/sqlite';
import { aUser, aV7Id, right } from '@tracelight/testkit';
import { IntegrationUseCases, gatewaySecretContext } from '@tracelight/use-cases';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

describe('resealSecrets', () => {
  const keys = (secretKey: Buffer, previousSecretKey?: Buffer) =>
    new AesGcmSecretSealer({ secretKey, ...(previousSecretKey ? { previousSecretKey } : {}), tokenTtlSeconds: 60, refreshTokenTtlSeconds: 60, passwordCacheTtlSeconds: 0 });
  const [OLD, NEW] = [randomBytes(32), randomBytes(32)];
  let dir: string;
  let db: SqliteDatabase;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracelight-reseal-'));
    db = new SqliteDatabase({ path: path.join(dir, 'tracelight.db') });
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const useCases = (sealer: AesGcmSecretSealer, integrations = sqliteRepositories(db).integrations) =>
    new IntegrationUseCases({ integrations, sealer, clock: new SystemClock(), ids: new TimeOrderedUuid4IdGenerator() });
  const gatewayOf = async (owner: UserId) => {
    const found = await right(sqliteRepositories(db).integrations.findByOwner(owner, 'gateway'));
    if (O.isNone(found)) throw new Error('no integration');
    return found.value;
  };

  it('keeps a token its owner sets again between the read and the write, and seals the others anew, over several pages', async () => {
    const repos = sqliteRepositories(db);
    const users = await Promise.all(Array.from({ length: 5 }, () => right(repos.users.insert(aUser()))));
    const as = (u: (typeof users)[number]): Principal => ({ userId: u.id, email: u.email, role: u.role, scheme: 'basic', apiKeyId: null });
    const before = useCases(keys(OLD));
    for (const u of users) await right(before.upsertGateway(as(u), { token: `old token of ${u.email}`, endpoint: 'https://gateway.example.com/relay', useCase: 'SUPPORT' }));

    // The owner of the first integration of the second page PUTs a new token right after that page is read.
    const during = useCases(keys(NEW, OLD));
    const ids = await Promise.all(users.map(async (u) => [u.id, (await gatewayOf(u.id)).id] as const));
    const byIntegration = [...ids].sort((a, b) => (a[1] < b[1] ? -1 : 1));
    const racer = users.find((u) => u.id === byIntegration[2]![0])!;
    let pages = 0;
    const integrations = repos.integrations;
    const racing = useCases(keys(NEW, OLD), {
      ...integrations,
      findByOwner: integrations.findByOwner.bind(integrations),
      upsert: integrations.upsert.bind(integrations),
      replaceSecret: integrations.replaceSecret.bind(integrations),
      page: (after, limit) => async () => {
        const page = await integrations.page(after, limit)();
        pages += 1;
        if (pages === 2) await right(during.upsertGateway(as(racer), { token: 'set during the pass', endpoint: 'https://gateway.example.com/relay', useCase: 'SUPPORT' }));
        return page;
      },
    });
    const report = await racing.resealSecrets(2)();
    expect(report).toEqual(E.right({ resealed: 4, current: 0, changedMeanwhile: 1, unopenable: [] }));
    expect(pages).toBe(3);

    // Each opens under the new key alone: the racer's as they set it, the others' as they were.
    const onlyNew = keys(NEW);
    for (const u of users) {
      const sealed = (await gatewayOf(u.id)).sealedSecret;
      expect(onlyNew.open(sealed, gatewaySecretContext(u.id))).toEqual(E.right(u === racer ? 'set during the pass' : `old token of ${u.email}`));
    }
    expect(await useCases(keys(NEW)).resealSecrets(2)()).toEqual(E.right({ resealed: 0, current: 5, changedMeanwhile: 0, unopenable: [] }));
    // A page of nothing would read nothing on one engine and everything on the other: refused.
    expect(await useCases(keys(NEW)).resealSecrets(0)()).toMatchObject(E.left({ _tag: 'Invalid', path: ['pageSize'] }));
  });

  it("seals anew a token sealed for its owner's version-7 id, once the migration has re-keyed the owner to version 4", async () => {
    const repos = sqliteRepositories(db);
    const v7 = aV7Id();
    const owner = await right(repos.users.insert(aUser({ id: asId<UserId>(v7) })));
    const as: Principal = { userId: owner.id, email: owner.email, role: owner.role, scheme: 'basic', apiKeyId: null };
    await right(useCases(keys(NEW)).upsertGateway(as, { token: 'sealed for the old id', endpoint: 'https://gateway.example.com/relay', useCase: 'SUPPORT' }));
    // What migration 10 does to the owner and every column naming them.
    db.db.pragma('defer_foreign_keys = ON');
    db.db.transaction(() => {
      db.db.prepare('UPDATE users SET id = ? WHERE id = ?').run(rekeyedId(v7), v7);
      db.db.prepare('UPDATE integrations SET created_by = ? WHERE created_by = ?').run(rekeyedId(v7), v7);
    })();
    const rekeyed = asId<UserId>(rekeyedId(v7));
    expect(keys(NEW).open((await gatewayOf(rekeyed)).sealedSecret, gatewaySecretContext(rekeyed))).toMatchObject(E.left(expect.any(String)));
    expect(await useCases(keys(NEW)).resealSecrets()()).toEqual(E.right({ resealed: 1, current: 0, changedMeanwhile: 0, unopenable: [] }));
    expect(keys(NEW).open((await gatewayOf(rekeyed)).sealedSecret, gatewaySecretContext(rekeyed))).toEqual(E.right('sealed for the old id'));
    expect(await useCases(keys(NEW)).resealSecrets()()).toEqual(E.right({ resealed: 0, current: 1, changedMeanwhile: 0, unopenable: [] }));
  });
});
