// Compiles a record search into one parameterised SQL statement. Column ids map to SQL through a
// fixed table, never by interpolating what the caller sent.
import { type RecordFilter, type RecordSort, foldCase } from '@tracelight/domain';
import type { RecordQuery } from '@tracelight/ports';
import { READ_COLUMNS } from './log-record.mapper';
import { NUMBER_COLUMNS, TEXT_COLUMNS } from './terms-index';
import { CHUNK_RECORDS, GROUP_BITS, flagQuery, labelQuery, metricTextQuery, numberQuery, tagQuery, textQuery } from './record-terms';
import { INFLATE } from './compressed-text';

/** Catalogue column id → SQL expression over log_records. */
const EXPRESSIONS: Readonly<Record<string, string>> = {
  input: 'input_text',
  output: 'output_text',
  name: 'name',
  created_at: 'created_at',
  id: 'id',
  external_id: 'external_id',
  progress_message: 'progress_message',
  error_message: 'error_message',
  tags: 'tags',
  status_code: 'status_code',
  dataset_input: 'dataset_input',
  dataset_output: 'dataset_output',
  session_id: 'session_id',
  project_id: 'project_id',
  run_id: 'run_id',
  updated_at: 'updated_at',
  has_children: 'has_children',
  is_complete: 'is_complete',
  type: 'type',
  trace_id: 'trace_id',
  parent_id: 'parent_id',
  step_number: 'step_number',
  agent_type: 'agent_type',
  tools: 'tools',
  model: 'model',
  temperature: 'temperature',
  finish_reason: 'finish_reason',
  tool_call_id: 'tool_call_id',
  control_id: 'control_id',
  agent_name: 'agent_name',
  check_stage: 'check_stage',
  applies_to: 'applies_to',
  evaluator_name: 'evaluator_name',
  selector_path: 'selector_path',
};

const METRIC = /^metrics\/([\s\S]+)$/;

/**
 * The SQL function the repository registers on its connection: throws once the search has read past
 * its time budget (RecordQuery.maxMs), which stops the statement, SQLite having no other way to be
 * interrupted from JavaScript. It is called for one row in 1,024 by rowid (a jump into JavaScript for
 * every row would cost a scan a noticeable share), so a search reads at most some milliseconds past it.
 */
export const SEARCH_BUDGET = 'tl_search_budget';
const WITHIN_BUDGET = `((rowid & 1023) != 0 OR ${SEARCH_BUDGET}())`;

/** The SQL function the repository registers on its connection: foldCase, for case-insensitive text filters. */
export const FOLD_CASE = 'tl_fold_case';
/**
 * `sql` case-folded: by lower() where its text is ASCII (one byte a character), for which lower() is
 * the same fold, and by FOLD_CASE elsewhere. Calling into JavaScript for every row made a scan several
 * times slower; most text is ASCII. `sql` must bind no parameter (it is written four times).
 */
const folded = (sql: string) => `(CASE WHEN octet_length(${sql}) = length(${sql}) THEN lower(${sql}) ELSE ${FOLD_CASE}(${sql}) END)`;

/** Text columns whose copy may be stored deflated (migration 17): then NULL, and read through INFLATE. */
const DEFLATABLE: Readonly<Record<string, readonly [text: string, deflated: string]>> = { input: ['input_text', 'input_z'], output: ['output_text', 'output_z'] };

/** A metric's name as a quoted label of a JSON path: a `"` or `\\` in the name is escaped with a backslash. */
const metricPath = (name: string): string => `$."${name.replace(/["\\]/g, '\\$&')}"`;

/** The SQL for a column, and a parameter it needs (the metric's JSON path). */
const expression = (columnId: string, params: unknown[]): string => {
  const deflatable = DEFLATABLE[columnId];
  if (deflatable) return `coalesce(${deflatable[0]}, ${INFLATE}(${deflatable[1]}))`;
  const known = EXPRESSIONS[columnId];
  if (known) return known;
  const m = METRIC.exec(columnId);
  if (m) {
    params.push(metricPath(m[1]!));
    return 'json_extract(metrics, ?)';
  }
  throw new Error(`column ${columnId} has no SQL mapping`); // the use case validated it: a bug if reached
};

const list = (v: string | ReadonlyArray<string>): ReadonlyArray<string> => (typeof v === 'string' ? [v] : v);
const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const COMPARE = { eq: '=', ne: '!=', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * The JSON types of a metric's value (as json_each names them) each type of filter compares, so that a
 * filter compares values of its own kind alone, as MongoDB's comparisons do: a number filter numbers (a
 * scorer's label is never a number: SQLite orders any text after every number, so `> 5` held for every
 * label; nor is a boolean, which SQLite reads as 1 or 0), a text filter labels and numbers (by their
 * text), a boolean filter booleans. The record index holds each kind apart (record-terms.ts).
 */
const METRIC_TYPES = { number: "'integer', 'real'", text: "'text', 'integer', 'real'", boolean: "'true', 'false'" } as const;

/** A metric's value where it is of `types`, else NULL (a record without one, or with one of another kind). */
const metricValue = (name: string, types: string, params: unknown[]): string => {
  params.push(name);
  return `(SELECT value FROM json_each(metrics) WHERE key = ? AND type IN (${types}))`;
};

const condition = (f: RecordFilter, params: unknown[]): string => {
  const metric = f.type === 'number' || f.type === 'text' || f.type === 'boolean' ? METRIC.exec(f.columnId) : null;
  const col = metric ? metricValue(metric[1]!, METRIC_TYPES[f.type as keyof typeof METRIC_TYPES], params) : f.type === 'collection' ? '' : expression(f.columnId, params);
  switch (f.type) {
    case 'text': {
      const values = list(f.value);
      const ci = !f.caseSensitive;
      // A metric is compared as its label, or as a number's text (a categorical scorer's column may hold
      // numbers), case or no case (MongoDB's adapter makes the same text: metricText); a list or a boolean
      // has none. Compared as it is, a number never equals a text value in SQLite.
      const text = metric ? `CAST(${col} AS TEXT)` : col;
      // SQLite's own lower() folds ASCII letters only (É stayed É): case is folded by the domain's rule.
      // A metric's column carries its name as a parameter, so it is written once (and its text is ASCII).
      const deflatable = DEFLATABLE[f.columnId];
      // A deflated copy is inflated once a row, then folded in JavaScript (folded() writes its text four times).
      const lhs = !ci
        ? text
        : metric
          ? `${FOLD_CASE}(${text})`
          : deflatable
            ? `(CASE WHEN ${deflatable[0]} IS NOT NULL THEN ${folded(deflatable[0])} ELSE ${FOLD_CASE}(${INFLATE}(${deflatable[1]})) END)`
            : folded(text);
      const norm = (s: string) => (ci ? foldCase(s) : s);
      if (f.operator === 'contains') {
        params.push(norm(values[0] ?? ''));
        return `instr(${lhs}, ?) > 0`;
      }
      if (f.operator === 'one_of' || f.operator === 'not_in') {
        params.push(...values.map(norm));
        // A record without the value is not in the list. `coalesce(… NOT IN …, 1)` says so with the column
        // written once: a metric's column carries its name as a parameter, bound once.
        const membership = `${lhs} ${f.operator === 'not_in' ? 'NOT IN' : 'IN'} (${placeholders(values.length)})`;
        return f.operator === 'not_in' ? `coalesce(${membership}, 1)` : `(${membership})`;
      }
      params.push(norm(values[0] ?? ''));
      return f.operator === 'eq' ? `${lhs} = ?` : `coalesce(${lhs} != ?, 1)`;
    }
    case 'number':
    case 'date': {
      const asNumber = (v: number | Date) => (v instanceof Date ? v.getTime() : v);
      if (f.operator === 'between') {
        const [lo, hi] = f.value as readonly [number | Date, number | Date];
        params.push(asNumber(lo), asNumber(hi));
        return `${col} BETWEEN ? AND ?`;
      }
      params.push(asNumber(f.value as number | Date));
      return `${col} ${COMPARE[f.operator]} ?`;
    }
    case 'id': {
      const values = list(f.value).map((v) => v.toLowerCase());
      params.push(...values);
      if (f.operator === 'eq') return `${col} = ?`;
      if (f.operator === 'ne') return `coalesce(${col} != ?, 1)`;
      return f.operator === 'one_of' ? `${col} IN (${placeholders(values.length)})` : `coalesce(${col} NOT IN (${placeholders(values.length)}), 1)`;
    }
    case 'collection': {
      const values = list(f.value);
      // A metric's labels: the elements of a list, or a label itself (json_each at a path to a single
      // value gives that value), as MongoDB's $in matches an array's elements or a value; never a number
      // or a boolean. (json_each of a label's text, not JSON, failed the search.)
      const m = METRIC.exec(f.columnId);
      if (m) params.push(metricPath(m[1]!));
      const elements = m ? "json_each(metrics, ?) WHERE type = 'text' AND" : `json_each(${expression(f.columnId, params)}) WHERE`;
      params.push(...values);
      const any = `EXISTS (SELECT 1 FROM ${elements} value IN (${placeholders(values.length)}))`;
      return f.operator === 'contains' ? any : `NOT ${any}`;
    }
    case 'boolean':
      params.push(f.value ? 1 : 0);
      return f.operator === 'eq' ? `${col} = ?` : `${col} != ?`;
  }
};

/** Sortable columns that are never NULL: ordered by the column alone, so an index can serve the order. */
const NEVER_NULL: ReadonlySet<string> = new Set(['created_at', 'id', 'name', 'type', 'run_id', 'project_id', 'is_complete', 'has_children']);

/**
 * `unindexed` (a search led by an access path): the order is written `+created_at`, which no index may
 * serve, so that SQLite reads the few rows the path names and sorts them, rather than walking the run
 * in time order through log_records_by_run_time until it meets them (a trace's spans in a run of a
 * million: half a second, against a millisecond).
 */
const orderBy = (sort: RecordSort | null, params: unknown[], unindexed = false): string => {
  const plus = unindexed ? '+' : '';
  if (!sort) return `${plus}created_at DESC, created_at_us DESC, id DESC`;
  const dir = sort.ascending ? 'ASC' : 'DESC';
  // log_records_by_run_time (run_id, is_trace, created_at, created_at_us, id) serves this order either way.
  if (sort.columnId === 'created_at') return `${plus}created_at ${dir}, created_at_us ${dir}, id ${dir}`;
  if (NEVER_NULL.has(sort.columnId)) return `${plus}${expression(sort.columnId, params)} ${dir}, id ${dir}`;
  // NULLs last either way, then the id as a tie-breaker so pages never overlap or skip. The column is
  // written twice, so a metric's path is bound twice, once for each placeholder.
  const isNull = `(${expression(sort.columnId, params)} IS NULL)`;
  return `${isNull}, ${expression(sort.columnId, params)} ${dir}, id ${dir}`;
};

/**
 * A way to the few records a filter matches without reading the run: SQL selecting the rowids of
 * candidates (every record the filter matches, and maybe some more: the filter itself still decides).
 */
export interface AccessPath {
  /** The filter it serves (its place in RecordQuery.filters). */
  readonly filter: number;
  /** The index (or table) it reads, for plans and logs. */
  readonly index: string;
  readonly rowids: string;
  readonly params: ReadonlyArray<unknown>;
  /**
   * How many candidates it would give, counted by SQL that stops at its LIMIT parameter (bound last):
   * each row it counts stands for `weight` candidates. Absent: few whatever the run (ids), taken at once.
   */
  readonly probe?: { readonly sql: string; readonly params: ReadonlyArray<unknown>; readonly weight: number };
}

/**
 * Id columns with an index of their own (migrations 4 and 14): a filter picking records by them (a
 * trace's spans, a span's children, a session's traces, records by id) matches a few records of the run
 * whatever its size. Named with INDEXED BY, so that a plan that could not use the index fails, loudly,
 * instead of quietly reading the run.
 */
const ID_INDEXES: Readonly<Record<string, string>> = {
  id: 'sqlite_autoindex_log_records_1',
  trace_id: 'log_records_by_trace',
  parent_id: 'log_records_by_parent',
  session_id: 'log_records_by_session',
};

/**
 * The records of the record index's documents matching a query (its parameter, twice): a group's document
 * names its records by rowid (migrations 15 and 19), the first shifted left by GROUP_BITS, the number of
 * the others in those low bits; a record's own document is under its rowid.
 */
const INDEXED_ROWIDS =
  `SELECT l.rowid FROM log_record_terms AS t JOIN log_records AS l ON l.rowid BETWEEN t.rowid >> ${GROUP_BITS} AND (t.rowid >> ${GROUP_BITS}) + (t.rowid & ${CHUNK_RECORDS - 1}) WHERE log_record_terms MATCH ?` +
  ' UNION ALL SELECT rowid FROM log_record_terms_own WHERE log_record_terms_own MATCH ?';
const INDEXED_DOCUMENTS = 'SELECT 1 FROM log_record_terms WHERE log_record_terms MATCH ? UNION ALL SELECT 1 FROM log_record_terms_own WHERE log_record_terms_own MATCH ?';
const INDEXED_TEXT: ReadonlySet<string> = new Set(TEXT_COLUMNS);
const INDEXED_NUMBERS: ReadonlySet<string> = new Set(NUMBER_COLUMNS);

/** The path through the record index for an FTS5 query (its candidates: up to CHUNK_RECORDS a document). */
const termsPath = (filter: number, match: string): AccessPath => ({
  filter,
  index: 'log_record_terms',
  rowids: INDEXED_ROWIDS,
  params: [match, match],
  probe: { sql: INDEXED_DOCUMENTS, params: [match, match], weight: CHUNK_RECORDS },
});

/** A number filter's range, both ends included (undefined: no bound), as the index's places cover it. */
const rangeOf = (f: Extract<RecordFilter, { type: 'number' }>): readonly [number | undefined, number | undefined] => {
  if (f.operator === 'between') return f.value as readonly [number, number];
  const v = f.value as number;
  return f.operator === 'eq' ? [v, v] : f.operator === 'gt' || f.operator === 'gte' ? [v, undefined] : [undefined, v];
};

/** The ways to the records of a search's filters (each a superset of its filter's matches). */
export const accessPaths = (q: RecordQuery): ReadonlyArray<AccessPath> =>
  q.filters.flatMap((f, filter): AccessPath[] => {
    if (f.type === 'id' && (f.operator === 'eq' || f.operator === 'one_of')) {
      const index = ID_INDEXES[f.columnId];
      if (index === undefined) return [];
      const values = list(f.value).map((v) => v.toLowerCase());
      const rowids = `SELECT rowid FROM log_records INDEXED BY ${index} WHERE run_id = ? AND ${EXPRESSIONS[f.columnId]} IN (${placeholders(values.length)})`;
      return [{ filter, index, rowids, params: [q.runId, ...values] }];
    }
    // Text found in the record, whatever its case: through the record index when every value has a
    // term (three word characters); the filter itself then decides each record, case and all.
    if (f.type === 'text' && (f.operator === 'contains' || f.operator === 'eq' || f.operator === 'one_of') && INDEXED_TEXT.has(EXPRESSIONS[f.columnId] ?? '')) {
      const match = textQuery(q.runId, list(f.value));
      return match === null ? [] : [termsPath(filter, match)];
    }
    // A number column's (or a metric's) value in a range: the places its values fall in.
    if (f.type === 'number' && f.operator !== 'ne' && (INDEXED_NUMBERS.has(f.columnId) || METRIC.test(f.columnId))) {
      const [low, high] = rangeOf(f);
      return [termsPath(filter, numberQuery(q.runId, f.columnId, low, high))];
    }
    // A tag among some.
    if (f.type === 'collection' && f.operator === 'contains' && f.columnId === 'tags') return [termsPath(filter, tagQuery(q.runId, list(f.value)))];
    // A metric's label (a text filter's eq or one_of: the label, or a number's text), a label among some
    // (a collection filter: a label, or a list's element), a boolean.
    const metric = METRIC.exec(f.columnId);
    if (metric !== null) {
      const name = metric[1]!;
      if (f.type === 'text' && (f.operator === 'eq' || f.operator === 'one_of')) return [termsPath(filter, metricTextQuery(q.runId, name, list(f.value)))];
      if (f.type === 'collection' && f.operator === 'contains') return [termsPath(filter, labelQuery(q.runId, name, list(f.value)))];
      if (f.type === 'boolean') return [termsPath(filter, flagQuery(q.runId, name, (f.operator === 'eq') === f.value))];
    }
    // Incomplete records: few, in a partial index of their own.
    if (f.type === 'boolean' && f.columnId === 'is_complete' && (f.operator === 'eq') !== f.value) {
      const rowids = 'SELECT rowid FROM log_records INDEXED BY log_records_incomplete WHERE run_id = ? AND is_complete = 0';
      return [{ filter, index: 'log_records_incomplete', rowids, params: [q.runId], probe: { sql: rowids, params: [q.runId], weight: 1 } }];
    }
    return [];
  });

/**
 * A keyset page's start (RecordQuery.after): past the record's place in created_at order (to the microsecond), then id, in
 * the order's direction. A row value, which log_records_by_run_time serves as a range of the index.
 */
const keyset = (q: RecordQuery, params: unknown[]): string => {
  if (q.sort !== null && q.sort.columnId !== 'created_at') throw new Error(`a keyset page needs a sort on created_at, not on ${q.sort.columnId}`);
  const after = q.after as NonNullable<RecordQuery['after']>;
  params.push(after.createdAt.getTime(), after.createdAtMicros, after.id);
  return `(created_at, created_at_us, id) ${q.sort?.ascending === true ? '>' : '<'} (?, ?, ?)`;
};

/** The search's result column giving a row's size against the page budget (RecordQuery.maxBytes). */
export const SIZE_COLUMN = 'stored_size';
/**
 * Every column read back counts (a record's name or metadata can be as large as its input), in bytes as
 * stored (UTF-8), as the budget says and MongoDB counts: octet_length, which SQLite reads from the
 * value's header, where length() would count characters through the whole text.
 */
const sizeOf = (c: string): string =>
  c === 'input_z' || c === 'output_z'
    ? '0'
    : c === 'input' || c === 'output'
      ? // A deflated text counts at its full length, in its marker (log-record.mapper.ts): what the page holds once read.
        `(CASE WHEN substr(${c}, 1, 1) = '~' THEN CAST(ltrim(${c}, '~#') AS INTEGER) ELSE octet_length(${c}) END)`
      : `coalesce(octet_length(${c}), 0)`;
const SELECTED = `${READ_COLUMNS.join(', ')}, ${READ_COLUMNS.map(sizeOf).join(' + ')} AS ${SIZE_COLUMN}`;

/**
 * The matching rows in order from the page's start, `limit + 1` at most (one more tells that more
 * follow). The caller reads them one at a time and stops at the page's byte budget. Led by `path`, the
 * search reads the rows it names (and sorts them); else it walks the run in the order asked, through
 * log_records_by_run_time where that serves it.
 */
export const compileSearch = (q: RecordQuery, path: AccessPath | null = null): { sql: string; params: unknown[] } => {
  const params: unknown[] = [];
  const where: string[] = [];
  if (path !== null) {
    where.push(`rowid IN (${path.rowids})`);
    params.push(...path.params);
  }
  // Led by a path, the run and kind are checked on the rows it names (`+`: no index for them), so that
  // SQLite cannot prefer walking the run's time index to the path's rowids.
  const plus = path === null ? '' : '+';
  where.push(`${plus}run_id = ?`, `${plus}is_trace = ?`, WITHIN_BUDGET, q.scope === 'sessions' ? "type = 'session'" : q.scope === 'spans' ? "type != 'session'" : '1 = 1');
  params.push(q.runId, q.scope === 'traces' ? 1 : 0);
  for (const f of q.filters) where.push(condition(f, params));
  if (q.after !== undefined) where.push(keyset(q, params));
  const matching = `FROM log_records WHERE ${where.join(' AND ')}`;
  const order = orderBy(q.sort, params, path !== null);
  params.push(q.page.limit + 1, q.page.startingToken);
  if (q.sort === null || NEVER_NULL.has(q.sort.columnId)) return { sql: `SELECT ${SELECTED} ${matching} ORDER BY ${order} LIMIT ? OFFSET ?`, params };
  // No index gives this order, so SQLite sorts every matching row: sort their rowids and keys only, then
  // read the page's rows whole (and order those few again), instead of sorting the rows with their payloads.
  const again = orderBy(q.sort, params);
  return {
    sql: `SELECT ${SELECTED} FROM log_records WHERE rowid IN (SELECT rowid ${matching} ORDER BY ${order} LIMIT ? OFFSET ?) ORDER BY ${again}`,
    params,
  };
};
