// Scorers: the caller's list, making an LLM judge, and one scorer's versions a page at a time
// (spec operation 5).
import type { ScorerVersionRecord } from '@tracelight/client';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { dateTime } from '../format';
import { Link, navigate, seg, useLocation, withQuery } from '../router';
import { ErrorNote, Loading, PageHead, useAction, useAsync } from '../ui/common';
import { TextBlock } from '../ui/text-block';

const OUTPUT_TYPES = ['boolean', 'percentage', 'float', 'discrete', 'count', 'categorical', 'multilabel'];

export const ScorersPage = () => {
  const scorers = useAsync((signal) => api.listScorers({ signal }), []);
  const [name, setName] = useState('');
  const [instructions, setInstructions] = useState('');
  const [outputType, setOutputType] = useState('boolean');
  const create = useAction(async () => {
    const scorer = await api.createScorer({ name, scorer_type: 'llm' });
    await api.createLlmVersion(scorer.id, { instructions, output_type: outputType });
    navigate(`/scorers/${seg(scorer.id)}`);
  });
  return (
    <section>
      <PageHead title="Scorers" subtitle="Metrics with versions: attach them to a run in its settings." />
      {scorers.status === 'failed' ? <ErrorNote error={scorers.error} /> : null}
      {scorers.status === 'loading' && !scorers.value ? <Loading /> : null}
      {scorers.value && scorers.value.length === 0 ? <p class="empty">No scorer yet.</p> : null}
      {scorers.value && scorers.value.length > 0 ? (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Latest version</th>
                <th scope="col">Group</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {scorers.value.map((s) => (
                <tr data-scorer-id={s.id}>
                  <td class="name-cell">
                    <Link href={`/scorers/${seg(s.id)}`} dir="auto">
                      {s.name}
                    </Link>
                  </td>
                  <td>{s.scorer_type}</td>
                  <td>{s.latest_version ? `v${s.latest_version.version}` : '—'}</td>
                  <td dir="auto">{(s as { group_label?: string | null }).group_label ?? '—'}</td>
                  <td>{dateTime(s.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <form
        class="card stack"
        aria-labelledby="new-scorer-title"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <h2 id="new-scorer-title">New LLM judge</h2>
        <label class="field">
          <span>Name (its metric column is metrics/&lt;name&gt;)</span>
          <input required maxLength={255} name="scorer-name" dir="auto" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Instructions to the judge</span>
          <textarea required rows={4} name="scorer-instructions" dir="auto" value={instructions} onInput={(e) => setInstructions(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Output type</span>
          <select value={outputType} onChange={(e) => setOutputType(e.currentTarget.value)}>
            {OUTPUT_TYPES.map((t) => (
              <option value={t}>{t}</option>
            ))}
          </select>
        </label>
        {create.error !== undefined ? <ErrorNote error={create.error} /> : null}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={create.busy}>
            Create scorer
          </button>
        </div>
      </form>
    </section>
  );
};

const PAGE = 10;

const VersionRow = ({ v }: { v: ScorerVersionRecord }) => {
  const kind = v.generated_scorer ? 'LLM judge' : v.registered_scorer ? 'code' : v.finetuned_scorer ? 'fine-tuned' : '—';
  const prompt = v.generated_scorer?.instructions || v.generated_scorer?.user_prompt || v.chain_poll_template?.template || v.finetuned_scorer?.prompt || '';
  return (
    <li class="version card-inner" data-version={v.version}>
      <div class="version-head">
        <strong>Version {v.version}</strong>
        <span class="chip">{kind}</span>
        {v.model_name ? <span class="muted">{v.model_name}</span> : null}
        {v.num_judges ? <span class="muted">{v.num_judges} judges</span> : null}
        {v.output_type ? <span class="muted">output {v.output_type}</span> : null}
        <span class="muted">{dateTime(v.created_at)}</span>
      </div>
      {prompt ? <TextBlock text={prompt} /> : null}
    </li>
  );
};

export const ScorerPage = ({ scorerId }: { scorerId: string }) => {
  const loc = useLocation();
  const start = Math.max(0, Number(loc.query.get('start') ?? 0) || 0);
  const scorer = useAsync((signal) => api.getScorer(scorerId, { signal }), [scorerId]);
  const versions = useAsync((signal) => api.listScorerVersions(scorerId, { starting_token: start, limit: PAGE }, { signal }), [scorerId, start]);
  const [instructions, setInstructions] = useState('');
  const add = useAction(async () => {
    await api.createLlmVersion(scorerId, { instructions });
    setInstructions('');
    scorer.reload();
    versions.reload();
  });
  if (scorer.status === 'failed') return <ErrorNote error={scorer.error} />;
  if (!scorer.value) return <Loading />;
  const s = scorer.value;
  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/scorers">Scorers</Link>
      </nav>
      <PageHead title={s.name} subtitle={`${s.scorer_type} scorer${s.description ? ` · ${s.description}` : ''}`} />
      <section aria-labelledby="versions-title">
        <h2 id="versions-title">Versions</h2>
        {versions.status === 'failed' ? <ErrorNote error={versions.error} /> : null}
        {versions.status === 'loading' && !versions.value ? <Loading /> : null}
        {versions.value ? (
          <>
            {versions.value.versions.length === 0 ? <p class="empty">No version yet.</p> : null}
            <ol class="versions">
              {versions.value.versions.map((v) => (
                <VersionRow v={v} />
              ))}
            </ol>
            <nav class="pager" aria-label="Version pages">
              <button type="button" class="button" disabled={start === 0} onClick={() => navigate(withQuery(loc, { start: start - PAGE > 0 ? String(start - PAGE) : undefined }))}>
                Previous
              </button>
              <span class="pager-status" role="status">
                {versions.value.versions.length ? `Versions ${start + 1}–${start + versions.value.versions.length}` : 'No versions here'}
              </span>
              <button
                type="button"
                class="button"
                disabled={versions.value.next_starting_token === null}
                onClick={() => navigate(withQuery(loc, { start: String(versions.value?.next_starting_token ?? 0) }))}
              >
                Next
              </button>
            </nav>
          </>
        ) : null}
      </section>
      <form
        class="card stack"
        onSubmit={(e) => {
          e.preventDefault();
          void add.run();
        }}
        aria-labelledby="new-version-title"
      >
        <h2 id="new-version-title">New LLM version</h2>
        <label class="field">
          <span>Instructions to the judge (other settings come from the scorer's defaults)</span>
          <textarea required rows={3} name="version-instructions" dir="auto" value={instructions} onInput={(e) => setInstructions(e.currentTarget.value)} />
        </label>
        {add.error !== undefined ? <ErrorNote error={add.error} /> : null}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={add.busy}>
            Add version
          </button>
        </div>
      </form>
    </section>
  );
};
