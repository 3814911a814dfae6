// Export a project (its runs, their insights settings and every trace, span and session) and import it
// into any database, ids kept: also the way to move a project between engines.
//
// The export is JSON Lines (`tracelight.project.v2`), written and read one line at a time, so a
// project of any size moves with bounded memory: a header line with the project, then for each run a
// line with the run and its insights settings, followed by one line per record of that run. The v1
// export (one JSON document holding everything) is still imported.
import {
  type LogRecord,
  type Project,
  type Run,
  type RunInsights,
  type RecordScope,
  type UserId,
  presentColumnsOfAll,
  RUN_KINDS,
} from '@tracelight/domain';
import type { Repositories, Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';

export const FORMAT = 'tracelight.project.v2';
const FORMAT_V1 = 'tracelight.project.v1';

/** The lines of an export, as written (dates as ISO strings once serialised). */
type ExportLine =
  | { readonly format: typeof FORMAT; readonly project: Project }
  | { readonly run: Run; readonly insights: RunInsights | null }
  | { readonly record: LogRecord };

const must = async <A>(r: Result<A>): Promise<A> => {
  const e = await r();
  if (E.isLeft(e)) throw new Error(`${e.left._tag}: ${'message' in e.left ? e.left.message : JSON.stringify(e.left)}`);
  return e.right;
};

/** Records are read a page of at most this many bytes at a time. */
const EXPORT_PAGE_BYTES = 16 * 2 ** 20;

/**
 * Writes the project of `owner` as JSON Lines through `write` (which may wait, for back-pressure),
 * a page of records at a time. Counts what it wrote.
 */
export const exportProject = async (
  repos: Repositories,
  owner: UserId,
  projectId: string,
  write: (line: string) => Promise<void>,
): Promise<{ runs: number; records: number }> => {
  const found = await must(repos.projects.findById(projectId as Project['id']));
  if (O.isNone(found) || found.value.createdBy !== owner) throw new Error(`no project ${projectId} of that user`);
  const project = found.value;
  const line = (l: ExportLine) => write(`${JSON.stringify(l)}\n`);
  await line({ format: FORMAT, project });
  let runs = 0;
  let records = 0;
  for (const kind of RUN_KINDS) {
    for (const run of await must(repos.runs.listInProject(project.id, kind))) {
      await line({ run, insights: O.toNullable(await must(repos.insights.find(run.id))) });
      runs += 1;
      for (const scope of ['sessions', 'traces', 'spans'] as RecordScope[]) {
        for (let start = 0; ; ) {
          const page = await must(
            repos.logRecords.search({ projectId: project.id, runId: run.id, scope, filters: [], sort: { columnId: 'created_at', ascending: true }, page: { startingToken: start, limit: 1000 }, maxBytes: EXPORT_PAGE_BYTES }),
          );
          for (const record of page.items) await line({ record });
          records += page.items.length;
          if (!page.more) break;
          start += page.items.length;
        }
      }
    }
  }
  return { runs, records };
};

const date = (s: unknown): Date => {
  const d = new Date(String(s));
  if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${JSON.stringify(s)}`);
  return d;
};
const dateOrNull = (s: unknown): Date | null => (s === null || s === undefined ? null : date(s));

// Dates revived field by field, never inside user data such as inputs.
const projectOf = (p: Project): Project => ({ ...p, createdAt: date(p.createdAt), updatedAt: date(p.updatedAt) });
const runOf = (r: Run): Run => ({ ...r, createdAt: date(r.createdAt), updatedAt: date(r.updatedAt) });
const insightsOf = (i: RunInsights | null): RunInsights | null =>
  i ? { ...i, updatedAt: date(i.updatedAt), insights: { logstream: { ...i.insights.logstream, startTime: dateOrNull(i.insights.logstream.startTime) } } } : null;
const recordOf = (x: LogRecord): LogRecord => ({ ...x, createdAt: date(x.createdAt), updatedAt: dateOrNull(x.updatedAt) });

/** Records are stored a batch at a time: at most this many, or this many bytes of JSON. */
const IMPORT_BATCH = 1000;
const IMPORT_BATCH_BYTES = 16 * 2 ** 20;

/**
 * Reads the whole export once without writing anything: a file cut short or edited by hand is refused
 * before any of it is imported.
 */
const checkExport = async (lines: AsyncIterable<string>): Promise<void> => {
  let header = false;
  let run = false;
  let n = 0;
  for await (const text of lines) {
    n += 1;
    if (text.trim() === '') continue;
    let l: Record<string, unknown>;
    try {
      l = JSON.parse(text) as Record<string, unknown>;
    } catch (e) {
      throw new Error(`line ${n} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!header) {
      if (l['format'] === FORMAT_V1) return;
      if (l['format'] !== FORMAT || typeof l['project'] !== 'object') throw new Error(`not a ${FORMAT} export`);
      header = true;
    } else if ('run' in l) run = true;
    else if (!('record' in l)) throw new Error(`line ${n} is neither a run nor a record`);
    else if (!run) throw new Error(`line ${n}: a record before any run`);
  }
  if (!header) throw new Error(`not a ${FORMAT} export`);
};

/**
 * Imports the export read from `lines()` (called twice: the file is checked whole before anything is
 * written) for `owner`, keeping every id; refuses (Conflict) a project or run id that already exists.
 * Reads v2 (JSON Lines) and v1 (one document on one line).
 */
export const importProject = async (repos: Repositories, owner: UserId, lines: () => AsyncIterable<string>): Promise<{ runs: number; records: number }> => {
  await checkExport(lines());
  let runs = 0;
  let records = 0;
  let current: Run | undefined;
  let batch: LogRecord[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (!current || batch.length === 0) return;
    await must(repos.logRecords.ingest(current.id, batch, presentColumnsOfAll(batch)));
    records += batch.length;
    batch = [];
    batchBytes = 0;
  };
  const startRun = async (run: Run, insights: RunInsights | null) => {
    await flush();
    current = run;
    await must(repos.runs.insert({ ...run, createdBy: owner }));
    if (insights) await must(repos.insights.replace(insights));
    runs += 1;
  };
  let header = false;
  for await (const text of lines()) {
    if (text.trim() === '') continue;
    const l = JSON.parse(text) as Record<string, unknown>;
    if (!header) {
      if (l['format'] === FORMAT_V1) return importV1(repos, owner, l as unknown as V1Export);
      header = true;
      await must(repos.projects.insert({ ...projectOf(l['project'] as Project), createdBy: owner }));
    } else if ('run' in l) {
      await startRun(runOf(l['run'] as Run), insightsOf(l['insights'] as RunInsights | null));
    } else {
      batch.push(recordOf(l['record'] as LogRecord));
      batchBytes += text.length;
      if (batch.length >= IMPORT_BATCH || batchBytes >= IMPORT_BATCH_BYTES) await flush();
    }
  }
  await flush();
  return { runs, records };
};

interface V1Export {
  readonly project: Project;
  readonly runs: ReadonlyArray<{ readonly run: Run; readonly insights: RunInsights | null; readonly records: ReadonlyArray<LogRecord> }>;
}

/** The v1 export: everything in one document. */
const importV1 = async (repos: Repositories, owner: UserId, data: V1Export): Promise<{ runs: number; records: number }> => {
  await must(repos.projects.insert({ ...projectOf(data.project), createdBy: owner }));
  let records = 0;
  for (const { run, insights, records: rs } of data.runs) {
    await must(repos.runs.insert({ ...runOf(run), createdBy: owner }));
    const revived = insightsOf(insights);
    if (revived) await must(repos.insights.replace(revived));
    for (let i = 0; i < rs.length; i += IMPORT_BATCH) {
      const chunk = rs.slice(i, i + IMPORT_BATCH).map(recordOf);
      await must(repos.logRecords.ingest(run.id, chunk, presentColumnsOfAll(chunk)));
    }
    records += rs.length;
  }
  return { runs: data.runs.length, records };
};
