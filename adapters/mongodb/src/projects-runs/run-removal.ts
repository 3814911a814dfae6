// Removing runs and what hangs off them, without a transaction (a project can hold millions of
// records, past what one transaction can carry), in an order that leaves no orphan behind a write
// racing the removal.
//
// The protocol, with the writes under a run (MongoRunRepository.insert, and the ingest, insights and
// scorer-settings writes): each write, once acknowledged, reads its parent — a new run its project,
// everything else its run and the run's project — and when the parent is gone removes what it may have
// left (the run itself first for a new run, then `removeRunData`) and answers NotFound. A removal takes
// the parent away before what hangs off it: the project (retire) before its runs and their records,
// presence and settings (the purge, later). So for a write W racing a removal R:
// - W finds its parent: W's read came before R removed the parent, so W's data was written (and
//   acknowledged with majority) before R started removing what hangs off the parent, and R removes it;
// - W finds no parent: W removes what it wrote itself.
// Either way nothing outlives R. Reads use majority read concern and writes w: majority (see
// MongoDatabase), so each side's read sees what the other had acknowledged before it.
import type { Db } from 'mongodb';
import type { StringIdDoc } from '../shared/run';

/** Collections whose documents are keyed (`_id`) by their run. */
const PER_RUN = ['run_columns', 'run_insights', 'run_scorer_settings'] as const;

/**
 * Removes what hangs off these runs (records, column presence, insights, scorer settings); the number
 * of records removed. `projectId`, when known, sends the record removal to the project's shard alone.
 */
export const removeRunData = async (db: Db, runIds: ReadonlyArray<string>, projectId?: string): Promise<number> => {
  if (runIds.length === 0) return 0;
  const ids = [...runIds];
  const records = await db.collection<StringIdDoc>('log_records').deleteMany({ ...(projectId !== undefined ? { projectId } : {}), runId: { $in: ids } });
  // Jobs after the records: a step cut short between the two finds the run again, and these go then.
  await db.collection('scoring_jobs').deleteMany({ runId: { $in: ids } });
  for (const name of PER_RUN) await db.collection<StringIdDoc>(name).deleteMany({ _id: { $in: ids } });
  // The runs' sessions by external id (MongoLogRecordRepository.findOrCreateSession), found by run.
  await db.collection<StringIdDoc>('session_keys').deleteMany({ runId: { $in: ids } });
  return records.deletedCount;
};

/**
 * Whether the run still exists, and its project: what a write under it reads once acknowledged (see
 * the module comment). A deleted project's document goes first (MongoProjectRepository.retire), its
 * runs only as its purge reaches them, so a run is live only while its project is. `projectId`, when
 * known, sends the read to the shard of the project's runs alone.
 */
export const runExists = async (db: Db, runId: string, projectId?: string): Promise<boolean> => {
  const found = await db.collection<StringIdDoc>('runs').findOne({ _id: runId, ...(projectId !== undefined ? { projectId } : {}) }, { projection: { projectId: 1 } });
  return found !== null && typeof found['projectId'] === 'string' && (await projectExists(db, found['projectId']));
};

/** Whether the project still exists: what a new run reads once acknowledged. */
export const projectExists = async (db: Db, projectId: string): Promise<boolean> =>
  (await db.collection<StringIdDoc>('projects').findOne({ _id: projectId }, { projection: { _id: 1 } })) !== null;
