// Export a project (its runs, their insights settings and every trace, span and session) to JSON,
// and import it into any database, ids kept: also the way to move a project between engines.
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

export const FORMAT = 'tracelight.project.v1';

export interface ProjectExport {
  readonly format: typeof FORMAT;
  readonly project: Project;
  readonly runs: ReadonlyArray<{ readonly run: Run; readonly insights: RunInsights | null; readonly records: ReadonlyArray<LogRecord> }>;
}

const must = async <A>(r: Result<A>): Promise<A> => {
  const e = await r();
  if (E.isLeft(e)) throw new Error(`${e.left._tag}: ${'message' in e.left ? e.left.message : JSON.stringify(e.left)}`);
  return e.right;
};

/** Records are read a page of at most this many bytes of inputs and outputs at a time. */
const EXPORT_PAGE_BYTES = 64 * 2 ** 20;

export const exportProject = async (repos: Repositories, owner: UserId, projectId: string): Promise<ProjectExport> => {
  const found = await must(repos.projects.findById(projectId as Project['id']));
  if (O.isNone(found) || found.value.createdBy !== owner) throw new Error(`no project ${projectId} of that user`);
  const project = found.value;
  const runs = [];
  for (const kind of RUN_KINDS) {
    for (const run of await must(repos.runs.listInProject(project.id, kind))) {
      const records: LogRecord[] = [];
      for (const scope of ['sessions', 'traces', 'spans'] as RecordScope[]) {
        for (let start = 0; ; ) {
          const page = await must(
            repos.logRecords.search({ projectId: project.id, runId: run.id, scope, filters: [], sort: { columnId: 'created_at', ascending: true }, page: { startingToken: start, limit: 1000 }, maxBytes: EXPORT_PAGE_BYTES }),
          );
          records.push(...page.records);
          if (!page.more) break;
          start += page.records.length;
        }
      }
      runs.push({ run, insights: O.toNullable(await must(repos.insights.find(run.id))), records });
    }
  }
  return { format: FORMAT, project, runs };
};

const date = (s: unknown): Date => {
  const d = new Date(String(s));
  if (Number.isNaN(d.getTime())) throw new Error(`not a date: ${JSON.stringify(s)}`);
  return d;
};
const dateOrNull = (s: unknown): Date | null => (s === null || s === undefined ? null : date(s));

/** Reads an export back (dates revived field by field, never inside user data such as inputs). */
export const parseExport = (text: string): ProjectExport => {
  const raw = JSON.parse(text) as ProjectExport;
  if (raw.format !== FORMAT) throw new Error(`not a ${FORMAT} export`);
  return {
    format: FORMAT,
    project: { ...raw.project, createdAt: date(raw.project.createdAt), updatedAt: date(raw.project.updatedAt) },
    runs: raw.runs.map((r) => ({
      run: { ...r.run, createdAt: date(r.run.createdAt), updatedAt: date(r.run.updatedAt) },
      insights: r.insights
        ? {
            ...r.insights,
            updatedAt: date(r.insights.updatedAt),
            insights: { logstream: { ...r.insights.insights.logstream, startTime: dateOrNull(r.insights.insights.logstream.startTime) } },
          }
        : null,
      records: r.records.map((x) => ({ ...x, createdAt: date(x.createdAt), updatedAt: dateOrNull(x.updatedAt) })),
    })),
  };
};

/** Imports for `owner`, keeping every id; refuses (Conflict) a project or run id that already exists. */
export const importProject = async (repos: Repositories, owner: UserId, data: ProjectExport): Promise<{ runs: number; records: number }> => {
  await must(repos.projects.insert({ ...data.project, createdBy: owner }));
  let records = 0;
  for (const { run, insights, records: rs } of data.runs) {
    await must(repos.runs.insert({ ...run, createdBy: owner }));
    if (insights) await must(repos.insights.replace(insights));
    for (let i = 0; i < rs.length; i += 1000) {
      const chunk = rs.slice(i, i + 1000);
      await must(repos.logRecords.ingest(run.id, chunk, presentColumnsOfAll(chunk)));
    }
    records += rs.length;
  }
  return { runs: data.runs.length, records };
};
