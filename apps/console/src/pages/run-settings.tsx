// A run's settings: its insights (spec operation 1), the scorers attached to it with their versions and
// sample rates, and its scoring status where the server evaluates.
import type { Scorer } from '@tracelight/client';
import { useEffect, useState } from 'preact/hooks';
import { api, errorText, isNotFound } from '../api';
import { dateTime } from '../format';
import { isScoring, JOB_COUNTS } from '../metrics';
import { Link, seg } from '../router';
import { ErrorNote, Loading, PageHead, useAction, useAsync } from '../ui/common';
import { type RunRef, useRunNames } from './run';

/** An instant as a datetime-local control shows it, in the reader's zone, to the second. */
const localOf = (iso: string | null | undefined): string => {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}`;
};

export const RunSettingsPage = (props: RunRef) => {
  const names = useRunNames(props);
  const base = `/projects/${seg(props.projectId)}/${props.kind}/${seg(props.runId)}`;
  return (
    <section class="settings-page">
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/">Projects</Link> › <Link href={`/projects/${seg(props.projectId)}`}>{names.value?.project ?? '…'}</Link> › <Link href={base}>{names.value?.run ?? '…'}</Link>
      </nav>
      <PageHead title={`Settings of ${names.value?.run ?? '…'}`} />
      <Insights {...props} />
      <RunScorersSection {...props} />
      <ScoringStatus {...props} />
    </section>
  );
};

const Insights = ({ projectId, runId }: RunRef) => {
  const current = useAsync((signal) => api.getInsights(projectId, runId, { signal }), [projectId, runId]);
  const [enabled, setEnabled] = useState<boolean | undefined>(undefined);
  const [start, setStart] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const logstream = current.value?.insights?.logstream;
  const shownEnabled = enabled ?? logstream?.enabled ?? false;
  const shownStart = start ?? localOf(logstream?.start_time);
  const save = useAction(async () => {
    const at = shownStart === '' ? null : new Date(shownStart);
    if (at !== null && Number.isNaN(at.getTime())) throw new Error('The start time is not a date');
    const answer = await api.upsertInsights(projectId, runId, { insights: { logstream: { enabled: shownEnabled, start_time: at === null ? null : at.toISOString() } } });
    setEnabled(undefined);
    setStart(undefined);
    current.reload();
    setSaved(`Saved: insights ${answer.insights?.logstream?.enabled ? 'on' : 'off'}${answer.insights?.logstream?.start_time ? ` from ${dateTime(answer.insights.logstream.start_time)}` : ''}.`);
  });
  return (
    <section class="card settings-section" aria-labelledby="insights-title">
      <h2 id="insights-title">Insights</h2>
      <p class="muted">Log stream insights look for patterns in the run's traces from the start time on.</p>
      {current.status === 'failed' ? <ErrorNote error={current.error} /> : null}
      {current.status === 'loading' && !current.value ? <Loading /> : null}
      {current.value ? (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault();
            setSaved(undefined);
            void save.run();
          }}
        >
          <label class="check switch">
            <input type="checkbox" name="insights-enabled" role="switch" checked={shownEnabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
            <span>Insights enabled</span>
          </label>
          <label class="field">
            <span>Start time (your time zone; empty: none)</span>
            <input type="datetime-local" step="1" name="insights-start" value={shownStart} onInput={(e) => setStart(e.currentTarget.value)} />
          </label>
          {save.error !== undefined ? <ErrorNote error={save.error} /> : null}
          {saved ? (
            <p class="note note-ok" role="status">
              {saved}
            </p>
          ) : null}
          <div class="form-actions">
            <button type="submit" class="button primary" disabled={save.busy}>
              Save insights
            </button>
          </div>
        </form>
      ) : null}
    </section>
  );
};

interface Entry {
  readonly scorer_id: string;
  readonly version: number | null;
  readonly sample_rate?: number | null;
}

const RunScorersSection = ({ projectId, runId }: RunRef) => {
  const data = useAsync(
    async (signal) => {
      const [settings, scorers] = await Promise.all([api.getRunScorers(projectId, runId, { signal }), api.listScorers({ signal })]);
      return { settings, scorers };
    },
    [projectId, runId],
  );
  const [draft, setDraft] = useState<Entry[] | undefined>(undefined);
  const [adding, setAdding] = useState('');
  const [saved, setSaved] = useState(false);
  const entries: Entry[] = draft ?? data.value?.settings.scorers ?? [];
  const save = useAction(async () => {
    await api.setRunScorers(
      projectId,
      runId,
      entries.map((e) => ({ scorer_id: e.scorer_id, version: e.version, ...(e.sample_rate !== undefined && e.sample_rate !== null ? { sample_rate: e.sample_rate } : {}) })),
    );
    setDraft(undefined);
    setSaved(true);
    data.reload();
  });
  if (data.status === 'failed' && !data.value)
    return (
      <section class="card settings-section">
        <h2>Scorers</h2>
        <ErrorNote error={data.error} />
      </section>
    );
  if (!data.value)
    return (
      <section class="card settings-section">
        <h2>Scorers</h2>
        <Loading />
      </section>
    );
  const byId = new Map<string, Scorer>(data.value.scorers.map((s) => [s.id, s]));
  const available = data.value.scorers.filter((s) => !entries.some((e) => e.scorer_id === s.id));
  const change = (i: number, changes: Partial<Entry>) => {
    setSaved(false);
    setDraft(entries.map((e, j) => (j === i ? { ...e, ...changes } : e)));
  };
  return (
    <section class="card settings-section" aria-labelledby="scorers-title">
      <h2 id="scorers-title">Scorers</h2>
      <p class="muted">Each attached scorer is a metric column of the run. A version left at “latest” follows new versions.</p>
      {entries.length === 0 ? <p class="empty">No scorer is attached to this run.</p> : null}
      {entries.length > 0 ? (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Scorer</th>
                <th scope="col">Version</th>
                <th scope="col">Sample rate</th>
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e, i) => {
                const scorer = byId.get(e.scorer_id);
                const latest = scorer?.latest_version?.version ?? 0;
                return (
                  <tr data-scorer-id={e.scorer_id}>
                    <td class="name-cell">
                      <Link href={`/scorers/${seg(e.scorer_id)}`} dir="auto">
                        {scorer?.name ?? e.scorer_id}
                      </Link>
                    </td>
                    <td>
                      <select aria-label={`Version of ${scorer?.name ?? e.scorer_id}`} value={e.version === null ? 'latest' : String(e.version)} onChange={(ev) => change(i, { version: ev.currentTarget.value === 'latest' ? null : Number(ev.currentTarget.value) })}>
                        <option value="latest">latest{latest ? ` (${latest})` : ''}</option>
                        {Array.from({ length: latest }, (_, k) => latest - k).map((v) => (
                          <option value={String(v)}>version {v}</option>
                        ))}
                      </select>
                    </td>
                    <td>
                      <input
                        type="number"
                        min="0"
                        max="1"
                        step="0.05"
                        class="narrow"
                        aria-label={`Sample rate of ${scorer?.name ?? e.scorer_id}`}
                        placeholder="1"
                        value={e.sample_rate ?? ''}
                        onInput={(ev) => change(i, { sample_rate: ev.currentTarget.value === '' ? null : Number(ev.currentTarget.value) })}
                      />
                    </td>
                    <td>
                      <button
                        type="button"
                        class="button"
                        onClick={() => {
                          setSaved(false);
                          setDraft(entries.filter((_, j) => j !== i));
                        }}
                      >
                        Remove
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      <div class="inline-form">
        <label class="field inline">
          <span>Attach</span>
          <select value={adding} onChange={(e) => setAdding(e.currentTarget.value)} name="attach-scorer">
            <option value="">Choose a scorer…</option>
            {available.map((s) => (
              <option value={s.id}>{s.name}</option>
            ))}
          </select>
        </label>
        <button
          type="button"
          class="button"
          disabled={adding === ''}
          onClick={() => {
            setSaved(false);
            setDraft([...entries, { scorer_id: adding, version: null }]);
            setAdding('');
          }}
        >
          Add
        </button>
        {data.value.scorers.length === 0 ? (
          <span class="muted">
            No scorer yet: <Link href="/scorers">create one</Link>.
          </span>
        ) : null}
      </div>
      {save.error !== undefined ? <ErrorNote error={save.error} /> : null}
      {saved && draft === undefined ? (
        <p class="note note-ok" role="status">
          Scorers saved.
        </p>
      ) : null}
      <div class="form-actions">
        <button type="button" class="button primary" disabled={draft === undefined || save.busy} onClick={() => void save.run()}>
          Save scorers
        </button>
      </div>
    </section>
  );
};

/** How long the status waits before it looks again while jobs are queued or in hand. */
const STATUS_POLL_MS = 2000;

const ScoringStatus = ({ projectId, runId }: RunRef) => {
  const status = useAsync((signal) => api.metricsStatus(projectId, runId, { signal }), [projectId, runId]);
  const scoring = status.status === 'done' && isScoring(status.value);
  // While the run has jobs waiting, the counts move by themselves: look again until they settle.
  useEffect(() => {
    if (!scoring) return undefined;
    const timer = setTimeout(status.reload, STATUS_POLL_MS);
    return () => clearTimeout(timer);
  }, [scoring, status.value, status.reload]);
  let body;
  if (status.status === 'loading' && !status.value) body = <Loading />;
  else if (status.status === 'failed' && isNotFound(status.error))
    body = (
      <p class="note" role="status">
        Scoring status is unavailable on this server ({errorText(status.error)}).
      </p>
    );
  else if (status.status === 'failed') body = <ErrorNote error={status.error} />;
  else if (status.value) {
    const entries = status.value.scorers;
    body =
      entries.length === 0 ? (
        <p class="empty">No scorer is attached, so nothing is being scored.</p>
      ) : (
        <div class="status-grid">
          {entries.map((entry) => (
            <section class="card-inner scorer-status" data-scorer-id={entry.scorer_id} data-version={entry.version} aria-label={`${entry.scorer_name}, version ${entry.version}`}>
              <h3 dir="auto">
                {entry.scorer_name} <span class="muted">· version {entry.version}</span> {entry.in_use ? <span class="chip">in use</span> : <span class="chip">earlier</span>}
              </h3>
              <dl class="job-counts">
                {JOB_COUNTS.map(([key, text]) => (
                  <div class={entry.jobs[key] > 0 ? `job-count job-${key}` : 'job-count zero'}>
                    <dt>{text}</dt>
                    <dd data-count={key}>{entry.jobs[key].toLocaleString()}</dd>
                  </div>
                ))}
              </dl>
              <dl class="facts">
                <dt>Sample rate</dt>
                <dd data-fact="sample_rate">{entry.sample_rate === null ? '—' : `${Number((entry.sample_rate * 100).toPrecision(4))} %`}</dd>
                <dt>Tokens</dt>
                <dd data-fact="tokens">
                  {entry.tokens.prompt.toLocaleString()} prompt · {entry.tokens.completion.toLocaleString()} completion
                </dd>
                {entry.last_error ? (
                  <>
                    <dt>Last error</dt>
                    <dd data-fact="last_error">
                      <span class="error-text" dir="auto">
                        {entry.last_error.message}
                      </span>{' '}
                      <span class="muted">({dateTime(entry.last_error.at)})</span>
                    </dd>
                  </>
                ) : null}
              </dl>
            </section>
          ))}
        </div>
      );
  }
  return (
    <section class="card settings-section" aria-labelledby="status-title">
      <h2 id="status-title">Scoring status</h2>
      {scoring ? (
        <p class="muted" role="status">
          Scoring: the counts refresh by themselves.
        </p>
      ) : null}
      {body}
      <div class="form-actions">
        <button type="button" class="button" onClick={status.reload}>
          Refresh
        </button>
      </div>
    </section>
  );
};
