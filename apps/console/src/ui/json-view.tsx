// JSON as a tree that folds, with a search that opens the branches holding a match and marks it.
import { useMemo, useState } from 'preact/hooks';

const SHOWN_ENTRIES = 200;

const isBranch = (v: unknown): v is object => typeof v === 'object' && v !== null;

const scalarText = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : String(v));

/** Whether the key or any value at or below this node contains the search (case folded). */
const holds = (key: string, value: unknown, q: string, cache: Map<unknown, boolean>): boolean => {
  if (q === '') return false;
  if (key.toLowerCase().includes(q)) return true;
  if (!isBranch(value)) return scalarText(value).toLowerCase().includes(q);
  const known = cache.get(value);
  if (known !== undefined) return known;
  const found = Object.entries(value).some(([k, v]) => holds(k, v, q, cache));
  cache.set(value, found);
  return found;
};

const Marked = ({ text, q }: { text: string; q: string }) => {
  if (q === '') return <>{text}</>;
  const at = text.toLowerCase().indexOf(q);
  if (at < 0) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + q.length)}</mark>
      {text.slice(at + q.length)}
    </>
  );
};

const Node = ({ name, value, depth, q, cache }: { name: string; value: unknown; depth: number; q: string; cache: Map<unknown, boolean> }) => {
  const [more, setMore] = useState(false);
  if (!isBranch(value))
    return (
      <div class={`json-leaf json-${value === null ? 'null' : typeof value}`}>
        <span class="json-key" dir="auto">
          <Marked text={name} q={q} />
        </span>
        <span class="json-value" dir="auto">
          <Marked text={scalarText(value)} q={q} />
        </span>
      </div>
    );
  const entries = Object.entries(value);
  const open = q !== '' ? holds(name, value, q, cache) : depth < 2;
  const shown = more ? entries : entries.slice(0, SHOWN_ENTRIES);
  return (
    // Keyed by `open` so that a new search opens and closes branches afresh; a person's clicks rule in between.
    <details key={String(open)} open={open} class="json-branch">
      <summary>
        <span class="json-key" dir="auto">
          <Marked text={name} q={q} />
        </span>
        <span class="json-count">{Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`}</span>
      </summary>
      <div class="json-children">
        {shown.map(([k, v]) => (
          <Node key={k} name={k} value={v} depth={depth + 1} q={q} cache={cache} />
        ))}
        {entries.length > shown.length ? (
          <button type="button" class="link-button" onClick={() => setMore(true)}>
            Show {entries.length - shown.length} more
          </button>
        ) : null}
      </div>
    </details>
  );
};

export const JsonView = ({ value, label }: { value: object; label: string }) => {
  const [query, setQuery] = useState('');
  const q = query.trim().toLowerCase();
  const cache = useMemo(() => new Map<unknown, boolean>(), [value, q]);
  return (
    <div class="json-view">
      <input class="json-search" type="search" placeholder="Search in JSON" aria-label={`Search in ${label}`} value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      <div class="json-tree">
        <Node name={Array.isArray(value) ? label : label} value={value} depth={0} q={q} cache={cache} />
      </div>
    </div>
  );
};
