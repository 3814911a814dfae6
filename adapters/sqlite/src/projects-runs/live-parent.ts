// Writes under a project or a run check, in their own transaction, that the project is live: a retired
// project (deleted, its purge under way) takes no more writes, and a write that began before it was
// retired either commits first, and is purged with the rest, or is refused here, storing nothing. A
// parent already purged would be refused by the foreign keys all the same (see `run`).
import { notFound } from '@tracelight/domain';
import type Database from 'better-sqlite3';
import { Abort } from '../shared/run';

export type UnderLiveParent = <A>(id: string, write: () => A) => A;

export const underLiveParent = (db: Database.Database, parent: 'project' | 'run'): UnderLiveParent => {
  const live = (
    parent === 'project'
      ? db.prepare('SELECT 1 FROM projects WHERE id = ? AND retired_at IS NULL')
      : db.prepare('SELECT 1 FROM runs r CROSS JOIN projects p WHERE r.id = ? AND p.id = r.project_id AND p.retired_at IS NULL')
  ).pluck();
  const checked = db.transaction((id: string, write: () => unknown) => {
    if (live.get(id) === undefined) throw new Abort(notFound(parent, id));
    return write();
  });
  // IMMEDIATE: the write lock first. A deferred transaction would read first, then fail at once to write
  // (SQLITE_BUSY_SNAPSHOT, no busy wait) had another connection committed in between; nested in the
  // writer thread's group commit it is a savepoint all the same.
  return <A>(id: string, write: () => A): A => checked.immediate(id, write) as A;
};
