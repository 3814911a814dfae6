import { type Integration, type IntegrationId, type Provider, type UserId, PROVIDERS } from '@tracelight/domain';
import type { IntegrationRepository, Result } from '@tracelight/ports';
import * as O from 'fp-ts/Option';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { IdString, JsonText, MsDate, SqlBool, decodeOrThrow, row } from '../shared/row-codecs';
import { run } from '../shared/run';
import { SqliteDatabase, SqliteDatabaseToken } from '../shared/sqlite-database';

const IntegrationRow = row({
  id: IdString<IntegrationId>(),
  created_by: IdString<UserId>(),
  provider: t.keyof(Object.fromEntries(PROVIDERS.map((p) => [p, null])) as Record<Provider, null>),
  name: t.string,
  settings: JsonText(t.record(t.string, t.string)),
  sealed_secret: t.string,
  is_selected: SqlBool,
  is_disabled: SqlBool,
  created_at: MsDate,
  updated_at: MsDate,
});

const fromRow = (stored: unknown): Integration => {
  const r = decodeOrThrow(IntegrationRow, stored);
  return {
    id: r.id,
    provider: r.provider,
    name: r.name,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    settings: r.settings,
    sealedSecret: r.sealed_secret,
    permissions: [],
    isSelected: r.is_selected,
    isDisabled: r.is_disabled,
  };
};

@injectable()
export class SqliteIntegrationRepository implements IntegrationRepository {
  private readonly byOwner;
  private readonly upsertStmt;
  private readonly firstPage;
  private readonly pageAfter;
  private readonly replaceSecretStmt;

  constructor(@inject(SqliteDatabaseToken) { db }: SqliteDatabase) {
    this.byOwner = db.prepare('SELECT * FROM integrations WHERE created_by = ? AND provider = ?');
    // One statement: two concurrent first writes still produce one row (the unique key decides).
    this.upsertStmt = db.prepare(
      `INSERT INTO integrations (id, created_by, provider, name, settings, sealed_secret, is_selected, is_disabled, created_at, updated_at)
       VALUES (@id, @created_by, @provider, @name, @settings, @sealed_secret, @is_selected, @is_disabled, @created_at, @updated_at)
       ON CONFLICT (created_by, provider) DO UPDATE SET name = excluded.name, settings = excluded.settings,
         sealed_secret = excluded.sealed_secret, updated_at = excluded.updated_at
       RETURNING *`,
    );
    this.firstPage = db.prepare('SELECT * FROM integrations ORDER BY id LIMIT ?');
    this.pageAfter = db.prepare('SELECT * FROM integrations WHERE id > ? ORDER BY id LIMIT ?');
    this.replaceSecretStmt = db.prepare('UPDATE integrations SET sealed_secret = ? WHERE id = ? AND sealed_secret = ?');
  }

  findByOwner(owner: UserId, provider: Provider): Result<O.Option<Integration>> {
    return run(() => O.map(fromRow)(O.fromNullable(this.byOwner.get(owner, provider))));
  }

  upsert(i: Integration): Result<Integration> {
    return run(() =>
      fromRow(
        this.upsertStmt.get({
          id: i.id,
          created_by: i.createdBy,
          provider: i.provider,
          name: i.name,
          settings: JSON.stringify(i.settings),
          sealed_secret: i.sealedSecret,
          is_selected: i.isSelected ? 1 : 0,
          is_disabled: i.isDisabled ? 1 : 0,
          created_at: i.createdAt.getTime(),
          updated_at: i.updatedAt.getTime(),
        }),
      ),
    );
  }

  page(after: IntegrationId | undefined, limit: number): Result<ReadonlyArray<Integration>> {
    return run(() => (after === undefined ? this.firstPage.all(limit) : this.pageAfter.all(after, limit)).map(fromRow));
  }

  replaceSecret(id: IntegrationId, from: string, to: string): Result<boolean> {
    return run(() => this.replaceSecretStmt.run(to, id, from).changes === 1);
  }
}
