// A run's records: traces, spans and sessions, a page at a time, with the columns, filters and sorts
// `available_columns` describes. The address holds the whole search (tab, filters, sort, page).
import type { Column, RecordFilter, StoredRecord } from '@tracelight/client';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { columnsOf, groupsOf, shownByDefault, shownColumns, type Tab, TABS } from '../catalogue';
import { decodeFilters, defaultOperator, describeFilter, encodeFilters, type FilterDraft, filterOf, OPERATORS, TIME_RANGES, timeRangeFilter } from '../filters';
import { Link, navigate, seg, useLocation, withQuery } from '../router';
import { Cell } from '../ui/cell';
import { Dialog, ErrorNote, Loading, PageHead, useAsync } from '../ui/common';

export interface RunRef {
  readonly projectId: string;
  readonly kind: 'log_streams' | 'experiments';
  readonly runId: string;
}

/** The run as the search and column routes name it. */
export const runScope = (r: RunRef) => (r.kind === 'experiments' ? { experiment_id: r.runId } : { log_stream_id: r.runId });

/** The project's and run's names, for headings. */
export const useRunNames = (r: RunRef) =>
  useAsync(
    async (signal) => {
      const [project, runs] = await Promise.all([
        api.getProject(r.projectId, { signal }),
        r.kind === 'experiments' ? api.listExperiments(r.projectId, {}, { signal }) : api.listLogStreams(r.projectId, {}, { signal }),
      ]);
      const run = runs.find((x) => x.id === r.runId);
      return { project: project.name, run: run?.name ?? r.runId };
    },
    [r.projectId, r.kind, r.runId],
  );

/** The run's column catalogue (spec operation 4). */
export const useCatalogue = (r: RunRef) => useAsync(async (signal) => (await api.availableColumns(r.projectId, runScope(r), { signal })).columns, [r.projectId, r.kind, r.runId]);

const TAB_LABELS: Readonly<Record<Tab, string>> = { traces: 'Traces', spans: 'Spans', sessions: 'Sessions' };
const PAGE_SIZES = [25, 50, 100];

const storedChoice = (key: string): string[] | undefined => {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(key) ?? 'null');
    return Array.isArray(v) ? v.map(String) : undefined;
  } catch {
    return undefined;
  }
};

let firstRenderMarked = false;

export const RunPage = (props: RunRef) => {
  const loc = useLocation();
  const tab = (TABS as ReadonlyArray<string>).includes(loc.query.get('tab') ?? '') ? (loc.query.get('tab') as Tab) : 'traces';
  const names = useRunNames(props);
  const catalogue = useCatalogue(props);
  const base = `/projects/${seg(props.projectId)}/${props.kind}/${seg(props.runId)}`;
  return (
    <section class="run-page">
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/">Projects</Link> › <Link href={`/projects/${seg(props.projectId)}`}>{names.value?.project ?? '…'}</Link>
      </nav>
      <PageHead title={names.value?.run ?? '…'} subtitle={props.kind === 'experiments' ? 'Experiment' : 'Log stream'}>
        <Link class="button" href={`${base}/settings`}>
          Settings and scorers
        </Link>
      </PageHead>
      <nav class="tabs" aria-label="Records">
        {TABS.map((t) => (
          <Link href={withQuery({ path: base, query: new URLSearchParams() }, { tab: t === 'traces' ? undefined : t })} aria-current={t === tab ? 'page' : undefined} class="tab">
            {TAB_LABELS[t]}
          </Link>
        ))}
      </nav>
      {names.status === 'failed' ? <ErrorNote error={names.error} /> : null}
      {catalogue.status === 'failed' ? <ErrorNote error={catalogue.error} title="The run's columns could not be read" /> : null}
      {catalogue.value ? <Records key={tab} run={props} tab={tab} catalogue={catalogue.value} base={base} /> : catalogue.status === 'loading' ? <Loading /> : null}
    </section>
  );
};

const Records = ({ run, tab, catalogue, base }: { run: RunRef; tab: Tab; catalogue: ReadonlyArray<Column>; base: string }) => {
  const loc = useLocation();
  const offered = useMemo(() => columnsOf(catalogue, tab), [catalogue, tab]);
  const choiceKey = `tracelight.columns.${run.runId}.${tab}`;
  const [chosen, setChosen] = useState<string[] | undefined>(() => storedChoice(choiceKey));
  const shown = shownColumns(offered, chosen);
  const filters = decodeFilters(loc.query.get('filters'));
  const range = loc.query.get('range') ?? 'all';
  const dateColumn = catalogue.find((c) => c.filter_type === 'date' && c.filterable);
  const sortParam = /^(.+):(asc|desc)$/.exec(loc.query.get('sort') ?? '');
  const sort = sortParam ? { column_id: sortParam[1]!, ascending: sortParam[2] === 'asc' } : undefined;
  const start = Math.max(0, Number(loc.query.get('start') ?? 0) || 0);
  const limit = PAGE_SIZES.includes(Number(loc.query.get('limit'))) ? Number(loc.query.get('limit')) : 50;
  const [now] = useState(() => Date.now());
  const ranged = dateColumn ? timeRangeFilter(range, dateColumn.id, now) : undefined;
  const searchFilters = ranged ? [...filters, ranged] : filters;
  const key = JSON.stringify([tab, searchFilters, sort, start, limit]);
  const page = useAsync(
    (signal) => {
      const search = { filters: searchFilters, ...(sort ? { sort } : {}), starting_token: start, limit };
      const scope = runScope(run);
      if (tab === 'spans') return api.searchSpans(run.projectId, scope, search, { signal });
      if (tab === 'sessions') return api.searchSessions(run.projectId, scope, search, { signal });
      return api.searchTraces(run.projectId, scope, search, { signal });
    },
    [run.projectId, run.runId, key],
  );
  const [picking, setPicking] = useState(false);
  const [filtering, setFiltering] = useState(false);
  const tableRef = useRef<HTMLTableElement>(null);
  useEffect(() => {
    if (!firstRenderMarked && page.status === 'done' && tableRef.current) {
      firstRenderMarked = true;
      performance.mark('tracelight:first-table-render');
    }
  }, [page.status]);

  const go = (changes: Record<string, string | undefined>) => navigate(withQuery(loc, changes));
  const setFilters = (next: RecordFilter[]) => go({ filters: encodeFilters(next), start: undefined });
  const choose = (ids: string[] | undefined) => {
    setChosen(ids);
    if (ids === undefined) localStorage.removeItem(choiceKey);
    else localStorage.setItem(choiceKey, JSON.stringify(ids));
  };
  const labelOf = (id: string) => catalogue.find((c) => c.id === id)?.label ?? id;
  const open = (r: StoredRecord): string | undefined => {
    if (tab === 'traces') return `${base}/traces/${seg(r.id)}`;
    if (tab === 'spans' && r.trace_id) return `${base}/traces/${seg(r.trace_id)}?span=${seg(r.id)}`;
    const sessionColumn = catalogue.find((c) => c.id === 'session_id' && c.filter_type === 'id');
    if (tab === 'sessions' && sessionColumn)
      return withQuery({ path: base, query: new URLSearchParams() }, { filters: encodeFilters([{ type: 'id', column_id: sessionColumn.id, operator: 'eq', value: r.id }]) });
    return undefined;
  };

  return (
    <div class="records">
      <div class="toolbar">
        <label class="field inline">
          <span>Time</span>
          <select value={range} onChange={(e) => go({ range: e.currentTarget.value === 'all' ? undefined : e.currentTarget.value, start: undefined })} disabled={!dateColumn}>
            {TIME_RANGES.map(([name, label]) => (
              <option value={name}>{label}</option>
            ))}
          </select>
        </label>
        <button type="button" class="button" onClick={() => setFiltering(true)}>
          Add filter
        </button>
        <button type="button" class="button" onClick={() => setPicking(true)} aria-haspopup="dialog">
          Columns ({shown.length}/{offered.length})
        </button>
        <label class="field inline push">
          <span>Rows</span>
          <select value={String(limit)} onChange={(e) => go({ limit: e.currentTarget.value === '50' ? undefined : e.currentTarget.value, start: undefined })}>
            {PAGE_SIZES.map((n) => (
              <option value={String(n)}>{n}</option>
            ))}
          </select>
        </label>
      </div>
      {filters.length > 0 ? (
        <ul class="filter-chips" aria-label="Filters">
          {filters.map((f, i) => (
            <li class="filter-chip">
              <span dir="auto">{describeFilter(f, labelOf(f.column_id))}</span>
              <button type="button" class="icon-button" aria-label={`Remove filter ${describeFilter(f, labelOf(f.column_id))}`} onClick={() => setFilters(filters.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
          <li>
            <button type="button" class="link-button" onClick={() => setFilters([])}>
              Clear all
            </button>
          </li>
        </ul>
      ) : null}
      {page.status === 'failed' ? <ErrorNote error={page.error} /> : null}
      <div class="table-wrap" aria-busy={page.status === 'loading'}>
        <table class="table records-table" ref={tableRef} aria-label={`${TAB_LABELS[tab]} of the run`}>
          <thead>
            <tr>
              <th scope="col" class="open-col">
                <span class="visually-hidden">Open</span>
              </th>
              {shown.map((c) => {
                const sorted = sort?.column_id === c.id ? (sort.ascending ? 'ascending' : 'descending') : undefined;
                return (
                  <th scope="col" data-column-id={c.id} aria-sort={sorted} class={`col-${c.data_type}`}>
                    {c.sortable ? (
                      <button
                        type="button"
                        class="sort-button"
                        title={c.description || undefined}
                        onClick={() => go({ sort: `${c.id}:${sorted === 'ascending' ? 'desc' : 'asc'}`, start: undefined })}
                      >
                        <span dir="auto">{c.label}</span>
                        <span class="sort-mark" aria-hidden="true">
                          {sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : '↕'}
                        </span>
                      </button>
                    ) : (
                      <span dir="auto" title={c.description || undefined}>
                        {c.label}
                      </span>
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {page.value?.records.map((r) => {
              const href = open(r);
              return (
                <tr data-record-id={r.id} class={href ? 'clickable' : undefined} onClick={(e) => href && !(e.target as HTMLElement).closest('a,button,.has-tip') && navigate(href)}>
                  <td class="open-col">
                    {href ? (
                      <Link href={href} aria-label={`Open ${r.name || r.id}`} class="open-link">
                        →
                      </Link>
                    ) : null}
                  </td>
                  {shown.map((c) => (
                    <td class={`col-${c.data_type}`} data-column-id={c.id}>
                      <Cell column={c} record={r} />
                    </td>
                  ))}
                </tr>
              );
            })}
          </tbody>
        </table>
        {page.status === 'loading' && !page.value ? <Loading /> : null}
        {page.value && page.value.records.length === 0 ? <p class="empty">No {tab} match{filters.length > 0 || ranged ? ' these filters' : ' in this run yet'}.</p> : null}
      </div>
      {page.value ? (
        <nav class="pager" aria-label="Pages">
          <button type="button" class="button" disabled={start === 0} onClick={() => go({ start: start - limit > 0 ? String(start - limit) : undefined })}>
            Previous
          </button>
          <span class="pager-status" role="status">
            {page.value.records.length === 0 ? 'No rows' : `Rows ${start + 1}–${start + page.value.records.length}`}
          </span>
          <button
            type="button"
            class="button"
            disabled={page.value.next_starting_token === null}
            onClick={() => go({ start: page.value?.next_starting_token == null ? undefined : String(page.value.next_starting_token) })}
          >
            Next
          </button>
        </nav>
      ) : null}
      <Dialog open={picking} title="Columns" onClose={() => setPicking(false)}>
        <ColumnPicker offered={offered} shown={shown.map((c) => c.id)} onChange={choose} />
      </Dialog>
      <Dialog open={filtering} title="Add a filter" onClose={() => setFiltering(false)}>
        <FilterForm
          columns={offered.filter((c) => c.filterable)}
          onApply={(f) => {
            setFiltering(false);
            setFilters([...filters, f]);
          }}
        />
      </Dialog>
    </div>
  );
};

const ColumnPicker = ({ offered, shown, onChange }: { offered: ReadonlyArray<Column>; shown: ReadonlyArray<string>; onChange: (ids: string[] | undefined) => void }) => {
  const set = new Set(shown);
  const toggle = (id: string, on: boolean) => onChange(offered.map((c) => c.id).filter((x) => (x === id ? on : set.has(x))));
  return (
    <div class="picker">
      <p class="muted">Columns empty in this run are hidden at first.</p>
      <div class="picker-actions">
        <button type="button" class="button" onClick={() => onChange(offered.map((c) => c.id))}>
          Show all
        </button>
        <button type="button" class="button" onClick={() => onChange(undefined)}>
          Reset ({shownByDefault(offered).length} with values)
        </button>
      </div>
      {groupsOf(offered).map((g) => (
        <fieldset class="picker-group">
          <legend dir="auto">{g.label}</legend>
          {g.columns.map((c) => (
            <label class="check" data-column-id={c.id}>
              <input type="checkbox" name="column" value={c.id} checked={set.has(c.id)} onChange={(e) => toggle(c.id, e.currentTarget.checked)} />
              <span dir="auto">{c.label}</span>
              {c.is_empty ? <span class="muted"> (empty)</span> : null}
            </label>
          ))}
        </fieldset>
      ))}
    </div>
  );
};

const FilterForm = ({ columns, onApply }: { columns: ReadonlyArray<Column>; onApply: (f: RecordFilter) => void }) => {
  const [columnId, setColumnId] = useState(columns[0]?.id ?? '');
  const column = columns.find((c) => c.id === columnId);
  const [draft, setDraft] = useState<FilterDraft>({ columnId, operator: column ? defaultOperator(column) : 'eq' });
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const pick = (id: string) => {
    const c = columns.find((x) => x.id === id);
    setColumnId(id);
    setDraft({ columnId: id, operator: c ? defaultOperator(c) : 'eq' });
    setProblem(undefined);
  };
  const update = (changes: Partial<FilterDraft>) => setDraft({ ...draft, ...changes });
  if (!column) return <p>No column of this run can be filtered.</p>;
  const operators = (OPERATORS[column.filter_type] ?? []).filter(([op]) => !(column.allowed_values && column.filter_type === 'text') || op === 'one_of' || op === 'not_in');
  return (
    <form
      class="filter-form"
      onSubmit={(e) => {
        e.preventDefault();
        const f = filterOf(column, draft);
        if (typeof f === 'string') setProblem(f);
        else onApply(f);
      }}
    >
      <label class="field">
        <span>Column</span>
        <select value={columnId} onChange={(e) => pick(e.currentTarget.value)} name="column">
          {groupsOf(columns).map((g) => (
            <optgroup label={g.label}>
              {g.columns.map((c) => (
                <option value={c.id}>{c.label}</option>
              ))}
            </optgroup>
          ))}
        </select>
      </label>
      {operators.length > 1 ? (
        <label class="field">
          <span>Condition</span>
          <select value={draft.operator} onChange={(e) => update({ operator: e.currentTarget.value, values: [], text: '' })} name="operator">
            {operators.map(([op, label]) => (
              <option value={op}>{label}</option>
            ))}
          </select>
        </label>
      ) : null}
      <FilterValue column={column} draft={draft} update={update} />
      {problem ? (
        <p class="note note-error" role="alert">
          {problem}
        </p>
      ) : null}
      <div class="form-actions">
        <button type="submit" class="button primary">
          Apply filter
        </button>
      </div>
    </form>
  );
};

const FilterValue = ({ column, draft, update }: { column: Column; draft: FilterDraft; update: (changes: Partial<FilterDraft>) => void }) => {
  switch (column.filter_type) {
    case 'number':
      return (
        <div class="range">
          <label class="field">
            <span>From</span>
            <input type="number" step="any" name="low" value={draft.low ?? ''} onInput={(e) => update({ low: e.currentTarget.value })} />
          </label>
          <label class="field">
            <span>To</span>
            <input type="number" step="any" name="high" value={draft.high ?? ''} onInput={(e) => update({ high: e.currentTarget.value })} />
          </label>
        </div>
      );
    case 'date':
      return (
        <div class="range">
          <label class="field">
            <span>From</span>
            <input type="datetime-local" step="1" name="low" value={draft.low ?? ''} onInput={(e) => update({ low: e.currentTarget.value })} />
          </label>
          <label class="field">
            <span>To</span>
            <input type="datetime-local" step="1" name="high" value={draft.high ?? ''} onInput={(e) => update({ high: e.currentTarget.value })} />
          </label>
        </div>
      );
    case 'boolean':
      return (
        <fieldset class="field">
          <legend>Value</legend>
          <label class="check">
            <input type="radio" name="flag" checked={draft.flag === true} onChange={() => update({ flag: true })} /> Yes
          </label>
          <label class="check">
            <input type="radio" name="flag" checked={draft.flag === false} onChange={() => update({ flag: false })} /> No
          </label>
        </fieldset>
      );
    default:
      if (column.allowed_values) {
        const chosen = new Set(draft.values ?? []);
        return (
          <fieldset class="field choice-list">
            <legend>Values</legend>
            {column.allowed_values.map((v) => (
              <label class="check">
                <input
                  type="checkbox"
                  name="value"
                  value={v}
                  checked={chosen.has(v)}
                  onChange={(e) => update({ values: e.currentTarget.checked ? [...chosen, v] : [...chosen].filter((x) => x !== v) })}
                />
                <span dir="auto">{v}</span>
              </label>
            ))}
          </fieldset>
        );
      }
      return (
        <label class="field">
          <span>{column.filter_type === 'text' && !['one_of', 'not_in'].includes(draft.operator) ? 'Text' : 'Values (separated by commas)'}</span>
          <input type="text" name="text" dir="auto" value={draft.text ?? ''} onInput={(e) => update({ text: e.currentTarget.value, values: undefined })} />
        </label>
      );
  }
};
