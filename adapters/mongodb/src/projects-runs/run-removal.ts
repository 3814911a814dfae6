// Removing runs and what hangs off them, without a transaction (a project can hold millions of
// records, past what one transaction can carry), in an order that leaves no orphan behind a write
// racing the removal.
//
// The protocol, with the writes under a run (MongoRunRepository.insert, and the ingest, insights and
// scorer-settings writes): each write, once acknowledged, reads its parent — a new run its project,
// everything else its run — and when the parent is gone removes what it may have left (the run
// itself first for a new run, then `removeRunData`) and answers NotFound. A removal takes the parent away before what hangs off it: the project before
// its runs, a run before its records, presence and settings. So for a write W racing a removal R:
// - W finds its parent: W's read came before R removed the parent, so W's data was written (and
//   acknowledged with majority) before R started removing what hangs off the parent, and R removes it;
// - W finds no parent: W removes what it wrote itself.
// Either way nothing outlives R. Reads use majority read concern and writes w: majority (see
// MongoDatabase), so each side's read sees what the other had acknowledged before it.
import type { Db } from 'mongodb';
import type { StringIdDoc } from '../shared/run';

/** Collections whose documents are keyed (`_id`) by their run. */
const PER_RUN = ['run_columns', 'run_insights', 'run_scorer_settings'] as const;
/** Runs removed a batch at a time, so that the list of their ids stays small. */
const BATCH = 1_000;

/**
 * Removes what hangs off these runs (records, column presence, insights, scorer settings); the number
 * of records removed. `projectId`, when known, sends the record removal to the project's shard alone.
 */
export const removeRunData = async (db: Db, runIds: ReadonlyArray<string>, projectId?: string): Promise<number> => {
  if (runIds.length === 0) return 0;
  const ids = [...runIds];
  const records = await db.collection<StringIdDoc>('log_records').deleteMany({ ...(projectId !== undefined ? { projectId } : {}), runId: { $in: ids } });
  for (const name of PER_RUN) await db.collection<StringIdDoc>(name).deleteMany({ _id: { $in: ids } });
  return records.deletedCount;
};

/**
 * Removes every run of the project, each before what hangs off it; call it once the project document
 * is gone. Runs are found again until none is left, so a run created meanwhile (which then removes
 * itself anyway, finding no project) goes too.
 */
export const removeRunsOfProject = async (db: Db, projectId: string): Promise<{ readonly runs: number; readonly records: number }> => {
  const runs = db.collection<StringIdDoc>('runs');
  let removedRuns = 0;
  let records = 0;
  for (;;) {
    const ids = (await runs.find({ projectId }, { projection: { _id: 1 }, limit: BATCH }).toArray()).map((d) => d._id);
    if (ids.length === 0) break;
    removedRuns += (await runs.deleteMany({ _id: { $in: ids }, projectId })).deletedCount;
    records += await removeRunData(db, ids, projectId);
  }
  return { runs: removedRuns, records };
};

/**
 * Whether the run still exists: what a write under it reads once acknowledged (see the module comment).
 * `projectId`, when known, sends the read to the shard of the project's runs alone.
 */
export const runExists = async (db: Db, runId: string, projectId?: string): Promise<boolean> =>
  (await db.collection<StringIdDoc>('runs').findOne({ _id: runId, ...(projectId !== undefined ? { projectId } : {}) }, { projection: { _id: 1 } })) !== null;

/** Whether the project still exists: what a new run reads once acknowledged. */
export const projectExists = async (db: Db, projectId: string): Promise<boolean> =>
  (await db.collection<StringIdDoc>('projects').findOne({ _id: projectId }, { projection: { _id: 1 } })) !== null;
