// Export a project (its runs, their insights settings and every trace, span and session) and import it
// into any database, ids kept: also the way to move a project between engines.
//
// The export is JSON Lines (`tracelight.project.v3`), written and read one line at a time, so a
// project of any size moves with bounded memory: a header line with the project, then for each run a
// line with the run and its insights settings, followed by one line per record of that run, and last a
// closing line with the number of runs and records written. A file without it, or whose lines do not
// add up to it, is cut short (an export interrupted, `head`) or edited: it is refused. The v1 export
// (one JSON document holding everything, which cannot be cut short and still parse) is still imported;
// a v2 one (v3 without the closing line) only when the operator says so (`unverified`).
import {
  type DomainError,
  type LogRecord,
  type Project,
  type ProjectId,
  type Run,
  type RunInsights,
  type RecordScope,
  type UserId,
  NODE_TYPES,
  PROJECT_TYPES,
  presentColumnsOfAll,
  RUN_KINDS,
} from '@tracelight/domain';
import { JsonOrUtf8Text, Name, Rec, Utf8Text, reportValidationErrors } from '@tracelight/api-schema';
import type { RecordPosition, Repositories, Result } from '@tracelight/ports';
import * as E from 'fp-ts/Either';
import * as O from 'fp-ts/Option';
import * as t from 'io-ts';

export const FORMAT = 'tracelight.project.v3';
const FORMAT_V2 = 'tracelight.project.v2';
const FORMAT_V1 = 'tracelight.project.v1';

/** What an export holds, as its closing line says and as an import counts it. */
export interface Counts {
  readonly runs: number;
  readonly records: number;
}

/** The lines of an export, as written (dates as ISO strings once serialised). */
type ExportLine =
  | { readonly format: typeof FORMAT; readonly project: Project }
  | { readonly run: Run; readonly insights: RunInsights | null }
  | { readonly record: LogRecord }
  | { readonly end: Counts };

/** A domain error thrown on, the error itself kept: an import that finds no room says so in its own words. */
class DomainFailure extends Error {
  constructor(readonly error: DomainError) {
    super(`${error._tag}: ${'message' in error ? error.message : JSON.stringify(error)}`);
  }
}
const failure = (e: DomainError): Error => new DomainFailure(e);

const must = async <A>(r: Result<A>): Promise<A> => {
  const e = await r();
  if (E.isLeft(e)) throw failure(e.left);
  return e.right;
};

/** Records are read a page of at most this many bytes at a time. */
const EXPORT_PAGE_BYTES = 16 * 2 ** 20;

/** A page read after the run changed: records moved between pages, so the export would not be the run. */
export class ExportRaced extends Error {}

/**
 * Writes the project of `owner` as JSON Lines through `write` (which may wait, for back-pressure),
 * a page of records at a time, then the closing line with the counts of what it wrote. Each page starts
 * after the last record of the one before (RecordQuery.after), so an export costs what it reads,
 * whatever the run's size. Run it where every read sees one snapshot (SqliteStorage.readingOneSnapshot),
 * or with `checkRepeats`, which refuses to go on (ExportRaced) when a record comes twice, the sign that
 * writes meanwhile moved a record (a retry changing its created_at) past the page being read.
 */
export const exportProject = async (
  repos: Repositories,
  owner: UserId,
  projectId: string,
  write: (line: string) => Promise<void>,
  options: { readonly checkRepeats?: boolean } = {},
): Promise<Counts> => {
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
      const seen = options.checkRepeats === true ? new Set<string>() : undefined;
      for (const scope of ['sessions', 'traces', 'spans'] as RecordScope[]) {
        for (let after: RecordPosition | undefined; ; ) {
          const page = await must(
            repos.logRecords.search({
              projectId: project.id,
              runId: run.id,
              scope,
              filters: [],
              sort: { columnId: 'created_at', ascending: true },
              page: { startingToken: 0, limit: 1000 },
              ...(after === undefined ? {} : { after }),
              maxBytes: EXPORT_PAGE_BYTES,
              maxMs: Number.POSITIVE_INFINITY,
            }),
          );
          for (const record of page.items) {
            if (seen !== undefined) {
              if (seen.has(record.id))
                throw new ExportRaced(
                  `the run ${run.id} changed while it was exported (record ${record.id} came twice): this engine reads no snapshot, so stop writes to the project and export it again`,
                );
              seen.add(record.id);
            }
            await line({ record });
          }
          records += page.items.length;
          const last = page.items[page.items.length - 1];
          if (!page.more || last === undefined) break;
          after = { createdAt: last.createdAt, createdAtMicros: last.createdAtMicros, id: last.id };
        }
      }
    }
  }
  await line({ end: { runs, records } });
  return { runs, records };
};

// The lines of an export, decoded whole (types, dates, names) before anything is written: a file edited
// by hand cannot store what the API would refuse. Dates are revived field by field, never inside user
// data such as inputs.
const DateText = new t.Type<Date, string, unknown>(
  'DateText',
  (u): u is Date => u instanceof Date,
  (u, c) => (typeof u === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(u) && !Number.isNaN(Date.parse(u)) ? t.success(new Date(u)) : t.failure(u, c, 'not a date')),
  (d) => d.toISOString(),
);
const keys = <K extends string>(values: ReadonlyArray<K>) => t.keyof(Object.fromEntries(values.map((v) => [v, null])) as Record<K, null>);
const orNull = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
const Strings = t.record(t.string, t.string);
const ProjectC = t.type({ id: t.string, name: Name, type: keys(PROJECT_TYPES), createdBy: t.string, createdAt: DateText, updatedAt: DateText });
// An export of an earlier build has no taskType (null: an experiment's is then answered as the default).
const RunC = t.intersection([
  t.type({ id: t.string, projectId: t.string, name: Name, kind: keys(RUN_KINDS), createdBy: t.string, createdAt: DateText, updatedAt: DateText }),
  t.partial({ taskType: orNull(t.number) }),
]);
const InsightsC = t.type({
  runId: t.string,
  insights: t.type({ logstream: t.type({ enabled: t.boolean, startTime: orNull(DateText) }) }),
  updatedAt: DateText,
});
// What the API stores as text, or as a column's values that filters compare (ids, name, messages,
// tags, typed attributes, metric names), holds no half of a surrogate pair (Utf8Text), as the API
// refuses it: an engine stores such text as UTF-8, and it would come back changed. Inputs, outputs and
// metadata are kept as JSON text, and take any string.
const RecordC = t.intersection([t.type({
  id: Utf8Text,
  type: keys(NODE_TYPES),
  projectId: t.string,
  runId: t.string,
  traceId: orNull(Utf8Text),
  parentId: orNull(Utf8Text),
  sessionId: orNull(Utf8Text),
  name: Utf8Text,
  input: t.unknown,
  output: t.unknown,
  createdAt: DateText,
  updatedAt: orNull(DateText),
  tags: t.array(Utf8Text),
  userMetadata: Strings,
  statusCode: orNull(t.number),
  externalId: orNull(Utf8Text),
  datasetInput: orNull(Utf8Text),
  datasetOutput: orNull(Utf8Text),
  datasetMetadata: Strings,
  // Rec, not t.record, whose key codec leaves out a key it refuses instead of failing.
  // A scorer's value may be a label or labels (categorical, multilabel judges).
  metrics: Rec(orNull(t.union([t.number, t.boolean, Utf8Text, t.array(Utf8Text)])), Utf8Text),
  isComplete: t.boolean,
  hasChildren: t.boolean,
  stepNumber: orNull(t.number),
  progressMessage: orNull(Utf8Text),
  errorMessage: orNull(Utf8Text),
  attributes: t.record(t.string, JsonOrUtf8Text),
}), t.partial({ otelRootKey: t.string, createdAtMicros: t.number, metricInfo: t.record(t.string, t.type({ status_type: t.string })) })]);
const HeaderLine = t.type({ format: t.union([t.literal(FORMAT), t.literal(FORMAT_V2)]), project: ProjectC });
const RunLine = t.type({ run: RunC, insights: orNull(InsightsC) });
const RecordLine = t.type({ record: RecordC });
const Count = t.refinement(t.number, (n) => Number.isSafeInteger(n) && n >= 0, 'a count');
const EndLine = t.type({ end: t.type({ runs: Count, records: Count }) });

/** `line` decoded by `codec`, or an error naming the line and the first field at fault. */
const decodeLine = <A>(codec: t.Decoder<unknown, A>, line: unknown, n: number): A => {
  const r = codec.decode(line);
  if (E.isRight(r)) return r.right;
  const [first] = reportValidationErrors(r.left, 'body');
  throw new Error(`line ${n}: ${first ? `${first.loc.slice(1).join('.')}: ${first.msg}` : 'not as an export writes it'}`);
};

/** Records are stored a batch at a time: at most this many, or this many bytes of JSON. */
const IMPORT_BATCH = 1000;
const IMPORT_BATCH_BYTES = 16 * 2 ** 20;

const V1Export = t.type({
  format: t.literal(FORMAT_V1),
  project: ProjectC,
  runs: t.array(t.type({ run: RunC, insights: orNull(InsightsC), records: t.array(RecordC) })),
});

type Line =
  | { readonly kind: 'header'; readonly project: Project }
  | { readonly kind: 'run'; readonly run: Run; readonly insights: RunInsights | null }
  | { readonly kind: 'record'; readonly record: LogRecord; readonly bytes: number }
  | { readonly kind: 'end'; readonly counts: Counts }
  | { readonly kind: 'v1'; readonly data: t.TypeOf<typeof V1Export> };

/** The exports an import may read: v3 and v1 always, v2 (which cannot be checked whole) only if `unverified`. */
export interface ImportOptions {
  /**
   * Completes an import of the same file that was stopped midway (see insertOrResume): only what is
   * missing is written, never over what is there (settings or records changed since stay as they are).
   */
  readonly resume?: boolean;
  /** Reads a v2 export, which has no closing line to show it is whole, as it is. */
  readonly unverified?: boolean;
}

/**
 * The export's lines decoded, in order: a header (or a whole v1 document), then runs each followed by
 * their records, then the closing line (v3). Throws, naming the line, at the first that is not as an
 * export writes it, and at the end of a v3 file without its closing line.
 */
async function* decodedLines(lines: AsyncIterable<string>, options: ImportOptions): AsyncGenerator<Line> {
  let header: typeof FORMAT | typeof FORMAT_V2 | undefined;
  let run = false;
  let end = false;
  let n = 0;
  for await (const text of lines) {
    n += 1;
    if (text.trim() === '') continue;
    // Two exports run together, or lines added after the export was finished.
    if (end) throw new Error(`line ${n} comes after the export's closing line: nothing was imported`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw new Error(`line ${n} is not JSON: ${e instanceof Error ? e.message : String(e)}`);
    }
    // Every line an export writes is an object: `null` or `"run"` is refused here, not found out by a lookup in it.
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new Error(`line ${n} is not an object but ${parsed === null ? 'null' : Array.isArray(parsed) ? 'a list' : `a ${typeof parsed}`}`);
    const l = parsed as Record<string, unknown>;
    if (!header) {
      if (l['format'] === FORMAT_V1) {
        yield { kind: 'v1', data: decodeLine(V1Export, l, n) };
        return;
      }
      if (l['format'] === FORMAT_V2 && !options.unverified)
        throw new Error(
          `this is a ${FORMAT_V2} export, written before exports ended with a closing line: whether it is whole cannot be checked, so nothing was imported. ` +
            'If it is (compare its runs and records with the project it came from), run the import again with --unverified',
        );
      if (l['format'] !== FORMAT && l['format'] !== FORMAT_V2) throw new Error(`not a ${FORMAT} export`);
      header = l['format'];
      yield { kind: 'header', project: decodeLine(HeaderLine, l, n).project as unknown as Project };
    } else if ('end' in l && header === FORMAT) {
      end = true;
      yield { kind: 'end', counts: decodeLine(EndLine, l, n).end };
    } else if ('run' in l) {
      run = true;
      const { run: r, insights } = decodeLine(RunLine, l, n);
      yield { kind: 'run', run: r as unknown as Run, insights: insights as unknown as RunInsights | null };
    } else if (!('record' in l)) throw new Error(`line ${n} is neither a run nor a record`);
    else if (!run) throw new Error(`line ${n}: a record before any run`);
    else yield { kind: 'record', record: decodeLine(RecordLine, l, n).record as unknown as LogRecord, bytes: text.length };
  }
  if (!header) throw new Error(`not a ${FORMAT} export`);
  if (header === FORMAT && !end)
    throw new Error(`the file ends at line ${n} without the export's closing line: it is cut short (an export interrupted, or part of a file), so nothing was imported`);
}

/**
 * Reads the whole export once without writing anything: a file cut short or edited by hand (a wrong
 * type, a bad date, a name the API would refuse, a run twice, lines that do not add up to the closing
 * line's counts) is refused before any of it is imported.
 */
const checkExport = async (lines: AsyncIterable<string>, options: ImportOptions): Promise<void> => {
  // Runs only: a project has few runs, and a record sent twice replaces itself, as over HTTP. A run of
  // the kind and name of another would be refused partway through the import.
  const runs = new Set<string>();
  const names = new Set<string>();
  const once = (run: { readonly id: string; readonly kind: string; readonly name: string }) => {
    if (runs.has(run.id)) throw new Error(`run ${run.id} is in the file twice`);
    if (names.has(`${run.kind} ${run.name}`)) throw new Error(`run ${run.id}: the file has two ${run.kind} runs named ${JSON.stringify(run.name)}`);
    runs.add(run.id);
    names.add(`${run.kind} ${run.name}`);
  };
  let records = 0;
  for await (const l of decodedLines(lines, options)) {
    if (l.kind === 'run') once(l.run);
    else if (l.kind === 'record') records += 1;
    else if (l.kind === 'v1') for (const r of l.data.runs) once(r.run);
    else if (l.kind === 'end' && (l.counts.runs !== runs.size || l.counts.records !== records))
      throw new Error(
        `the export's closing line counts ${l.counts.runs} runs and ${l.counts.records} records, but the file holds ${runs.size} runs and ${records} records: ` +
          'it was cut or edited, so nothing was imported',
      );
  }
};

/**
 * Everything imported belongs where the file puts it in the importer's hands, whatever ids its lines
 * name: a run to the imported project, its insights to that run, a record to the run line above it.
 * An edited file cannot write into another user's project, run or settings.
 */
// Exports of earlier builds lack a run's taskType and a record's createdAtMicros (the `??`s).
const pinRun = (run: Run, project: Project, owner: UserId): Run => ({ ...run, projectId: project.id, createdBy: owner, taskType: run.taskType ?? null });
const pinInsights = (insights: RunInsights | null, run: Run): RunInsights | null => (insights ? { ...insights, runId: run.id } : null);
const pinRecord = (record: LogRecord, run: Run): LogRecord => ({ ...record, runId: run.id, projectId: run.projectId, createdAtMicros: record.createdAtMicros ?? 0 });

/**
 * `resume`: the project (or a run) is there already, from an import of this file that was stopped
 * midway: it is taken as it is, if it is the same (the importer's, the same name; a run of this
 * project, the same kind and name), and what is missing is written (see writeRun, writeRecords).
 * True when `item` is written now, false when it was there.
 */
const insertOrResume = async <A extends { readonly id: string }>(
  what: string,
  item: A,
  insert: (item: A) => Result<A>,
  existing: () => Result<O.Option<A>>,
  same: (found: A) => boolean,
  resume: boolean,
  clash: (conflict: DomainError) => Promise<Error> = async (conflict) => failure(conflict),
): Promise<boolean> => {
  const inserted = await insert(item)();
  if (E.isRight(inserted)) return true;
  // Not this id (another of the same name, or this id elsewhere), or not a conflict at all: resuming would not help.
  const found = inserted.left._tag === 'Conflict' ? await must(existing()) : O.none;
  if (O.isNone(found)) throw inserted.left._tag === 'Conflict' ? await clash(inserted.left) : failure(inserted.left);
  // Another's (or another of that id): resuming could not help, so it is not offered.
  if (!same(found.value)) throw new Error(`${what} ${item.id} exists and is not the one this file imports${resume ? ': not resumed' : ' (an import keeps every id)'}`);
  if (!resume) throw new Error(`${what} ${item.id} exists already: run the import again with --resume to complete an import of this file that was stopped midway`);
  return false;
};

/**
 * Imports the export read from `lines()` (called twice: the file is checked whole before anything is
 * written) for `owner`, keeping every id; refuses (Conflict) a project or run id that already exists,
 * unless `resume` (see insertOrResume). Reads v3 (JSON Lines), v1 (one document on one line) and, if
 * `unverified`, v2. An import that fails partway (a run id another project holds, which no port can
 * look up beforehand) deletes the project it created, with `discard`, so that no half project is left;
 * except when there is no room: that one is completed with `resume` once there is.
 */
export const importProject = async (
  repos: Repositories,
  owner: UserId,
  lines: () => AsyncIterable<string>,
  discard: (project: ProjectId) => Promise<void>,
  options: ImportOptions = {},
): Promise<Imported> => {
  await checkExport(lines(), options);
  const done: Progress = { project: false, created: undefined, runs: 0, records: 0, written: { runs: 0, records: 0 } };
  try {
    return await importChecked(repos, owner, lines, options, done);
  } catch (e) {
    // Stopped partway by anything but a lack of room: the project it created goes, with what it holds.
    if (!(e instanceof DomainFailure && e.error._tag === 'StorageFull')) {
      if (done.created === undefined) throw e;
      const reason = e instanceof Error ? e.message : String(e);
      try {
        await discard(done.created);
      } catch (undone) {
        throw new Error(`${reason}; the project ${done.created} this import began could not be deleted (${undone instanceof Error ? undone.message : String(undone)}): delete it with delete-project`);
      }
      throw new Error(`${reason}: nothing was imported`);
    }
    // No room (a full disk, the SQLite quota): what is written stays, and --resume completes it once there is room.
    const room = 'Free space (on SQLite: on its disk, or raise TRACELIGHT_SQLITE_MAX_BYTES), then run the import again';
    throw new Error(
      `no room left in the database for this import (${e.error.message}): ${
        done.project ? `it stopped after ${done.runs} runs and ${done.records} records, which are kept. ${room} with --resume to complete it` : `nothing was imported. ${room}`
      }`,
    );
  }
};

/** What an import holds in all (the file's runs and records), and what of it was written now: all of it, unless resumed. */
export interface Imported extends Counts {
  readonly written: Counts;
}

/**
 * How far an import has gone: whether the project is there (and whether it created it), then how many
 * runs and records of the file are, and how many of them it wrote.
 */
interface Progress {
  project: boolean;
  created: ProjectId | undefined;
  runs: number;
  records: number;
  written: { runs: number; records: number };
}

const SCOPES: ReadonlyArray<RecordScope> = ['sessions', 'traces', 'spans'];

/**
 * Writes `run` with its insights settings. A run that is there already (`resume`) keeps its settings
 * if it has some: an import writes a run's settings right after the run, so any there are the file's
 * or were changed since, and the file's older ones must not roll them back. True when the run is new.
 */
const writeRun = async (repos: Repositories, run: Run, insights: RunInsights | null, resume: boolean, done: Progress): Promise<boolean> => {
  const created = await insertRun(repos, run, resume);
  done.runs += 1;
  if (created) done.written.runs += 1;
  const pinned = pinInsights(insights, run);
  if (pinned && (created || O.isNone(await must(repos.insights.find(run.id))))) await must(repos.insights.replace(pinned));
  return created;
};

/**
 * Stores a batch of the records of `run`; of a run that was there already (`resume`), only those it
 * does not hold yet: a record stored since (a client's retry, an update) is not written over.
 */
const writeRecords = async (repos: Repositories, run: Run, created: boolean, records: ReadonlyArray<LogRecord>, done: Progress): Promise<void> => {
  let missing = records;
  if (!created) {
    const ids = [...new Set(records.map((r) => r.id))];
    const stored = new Set<string>();
    for (const scope of SCOPES) {
      for (let start = 0; ; ) {
        const page = await must(
          repos.logRecords.search({
            projectId: run.projectId,
            runId: run.id,
            scope,
            filters: [{ type: 'id', columnId: 'id', operator: 'one_of', value: ids }],
            sort: { columnId: 'created_at', ascending: true },
            page: { startingToken: start, limit: IMPORT_BATCH },
            maxBytes: EXPORT_PAGE_BYTES,
            maxMs: Number.POSITIVE_INFINITY,
          }),
        );
        for (const r of page.items) stored.add(r.id);
        if (!page.more) break;
        start += page.items.length;
      }
    }
    missing = records.filter((r) => !stored.has(r.id));
  }
  if (missing.length > 0) await must(repos.logRecords.ingest(run.id, missing, presentColumnsOfAll(missing)));
  done.records += records.length;
  done.written.records += missing.length;
};

/** The import of a file checkExport has read whole, counting in `done` what it has written. */
const importChecked = async (repos: Repositories, owner: UserId, lines: () => AsyncIterable<string>, options: ImportOptions, done: Progress): Promise<Imported> => {
  const resume = options.resume ?? false;
  let project: Project | undefined;
  let current: Run | undefined;
  let created = false;
  let batch: LogRecord[] = [];
  let batchBytes = 0;
  const flush = async () => {
    if (!current || batch.length === 0) return;
    await writeRecords(repos, current, created, batch, done);
    batch = [];
    batchBytes = 0;
  };
  for await (const l of decodedLines(lines(), options)) {
    if (l.kind === 'v1') return importV1(repos, owner, l.data as unknown as V1, resume, done);
    if (l.kind === 'header') {
      project = { ...l.project, createdBy: owner };
      if (await insertProject(repos, project, resume)) done.created = project.id;
      done.project = true;
    } else if (l.kind === 'run') {
      await flush();
      current = pinRun(l.run, project!, owner);
      created = await writeRun(repos, current, l.insights, resume, done);
    } else if (l.kind === 'record') {
      batch.push(pinRecord(l.record, current!));
      batchBytes += l.bytes;
      if (batch.length >= IMPORT_BATCH || batchBytes >= IMPORT_BATCH_BYTES) await flush();
    }
  }
  await flush();
  return { runs: done.runs, records: done.records, written: done.written };
};

interface V1 {
  readonly project: Project;
  readonly runs: ReadonlyArray<{ readonly run: Run; readonly insights: RunInsights | null; readonly records: ReadonlyArray<LogRecord> }>;
}

const insertProject = (repos: Repositories, project: Project, resume: boolean) =>
  insertOrResume('project', project, (p) => repos.projects.insert(p), () => repos.projects.findById(project.id), (p) => p.createdBy === project.createdBy && p.name === project.name, resume);

const insertRun = (repos: Repositories, run: Run, resume: boolean) =>
  insertOrResume(
    'run',
    run,
    (r) => repos.runs.insert(r),
    () => repos.runs.findInProject(run.projectId, run.id),
    (r) => r.kind === run.kind && r.name === run.name,
    resume,
    // Neither this run nor one of its name in the project: its id is taken, by a run of another project.
    async (conflict) =>
      (await must(repos.runs.listInProject(run.projectId, run.kind, run.name))).length > 0
        ? failure(conflict)
        : new Error(`run ${run.id} is already used by another project in this database (an import keeps every id)`),
  );

/** The v1 export: everything in one document. */
const importV1 = async (repos: Repositories, owner: UserId, data: V1, resume: boolean, done: Progress): Promise<Imported> => {
  const project = { ...data.project, createdBy: owner };
  if (await insertProject(repos, project, resume)) done.created = project.id;
  done.project = true;
  for (const { run: given, insights, records: rs } of data.runs) {
    const run = pinRun(given, project, owner);
    const created = await writeRun(repos, run, insights, resume, done);
    for (let i = 0; i < rs.length; i += IMPORT_BATCH) await writeRecords(repos, run, created, rs.slice(i, i + IMPORT_BATCH).map((r) => pinRecord(r, run)), done);
  }
  return { runs: done.runs, records: done.records, written: done.written };
};
