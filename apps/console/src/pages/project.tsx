// A project's runs: its log streams and experiments, and making one.
import type { Run } from '@tracelight/client';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { dateTime } from '../format';
import { Link, navigate, seg } from '../router';
import { ErrorNote, Loading, PageHead, useAction, useAsync } from '../ui/common';

type Kind = 'log_streams' | 'experiments';
const KINDS: ReadonlyArray<readonly [Kind, string, string]> = [
  ['log_streams', 'Log streams', 'log stream'],
  ['experiments', 'Experiments', 'experiment'],
];

const RunList = ({ projectId, kind, runs }: { projectId: string; kind: Kind; runs: ReadonlyArray<Run> }) =>
  runs.length === 0 ? (
    <p class="empty">None yet.</p>
  ) : (
    <ul class="run-list">
      {[...runs]
        .sort((a, b) => b.created_at.localeCompare(a.created_at))
        .map((r) => (
          <li>
            <Link href={`/projects/${seg(projectId)}/${kind}/${seg(r.id)}`} dir="auto" class="run-link">
              {r.name}
            </Link>
            <span class="muted"> · created {dateTime(r.created_at)}</span>
          </li>
        ))}
    </ul>
  );

export const ProjectPage = ({ projectId }: { projectId: string }) => {
  const data = useAsync(
    async (signal) => {
      const [project, logStreams, experiments] = await Promise.all([
        api.getProject(projectId, { signal }),
        api.listLogStreams(projectId, {}, { signal }),
        api.listExperiments(projectId, {}, { signal }),
      ]);
      return { project, runs: { log_streams: logStreams, experiments } as Record<Kind, Run[]> };
    },
    [projectId],
  );
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('log_streams');
  const create = useAction(async () => {
    const r = kind === 'log_streams' ? await api.createLogStream(projectId, name) : await api.createExperiment(projectId, name);
    navigate(`/projects/${seg(projectId)}/${kind}/${seg(r.id)}`);
  });
  if (data.status === 'failed') return <ErrorNote error={data.error} />;
  if (!data.value) return <Loading />;
  const { project, runs } = data.value;
  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumb">
        <Link href="/">Projects</Link>
      </nav>
      <PageHead title={project.name} subtitle={`Project · ${project.type}`} />
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <label class="field inline">
          <span>New</span>
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            <option value="log_streams">log stream</option>
            <option value="experiments">experiment</option>
          </select>
        </label>
        <label class="field inline">
          <span>named</span>
          <input required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Name" dir="auto" />
        </label>
        <button class="button primary" type="submit" disabled={create.busy}>
          Create
        </button>
      </form>
      {create.error !== undefined ? <ErrorNote error={create.error} /> : null}
      <div class="columns-2">
        {KINDS.map(([k, title]) => (
          <section aria-labelledby={`runs-${k}`}>
            <h2 id={`runs-${k}`}>{title}</h2>
            <RunList projectId={projectId} kind={k} runs={runs[k]} />
          </section>
        ))}
      </div>
    </section>
  );
};
