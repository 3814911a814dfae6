// The caller's projects, and making one.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { dateTime } from '../format';
import { Link, navigate, seg } from '../router';
import { ErrorNote, Loading, PageHead, useAction, useAsync } from '../ui/common';

export const ProjectsPage = () => {
  const projects = useAsync((signal) => api.listProjects({}, { signal }), []);
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const p = await api.createProject({ name });
    navigate(`/projects/${seg(p.id)}`);
  });
  return (
    <section>
      <PageHead title="Projects" subtitle="Each project holds runs: log streams of live traffic and experiments." />
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <label class="field inline">
          <span>New project</span>
          <input required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="Name" dir="auto" />
        </label>
        <button class="button primary" type="submit" disabled={create.busy}>
          Create project
        </button>
      </form>
      {create.error !== undefined ? <ErrorNote error={create.error} /> : null}
      {projects.status === 'failed' ? <ErrorNote error={projects.error} /> : null}
      {projects.status === 'loading' && !projects.value ? <Loading /> : null}
      {projects.value ? (
        projects.value.length === 0 ? (
          <p class="empty">No project yet: create one above, or send traces with an SDK or OpenTelemetry (they name their project).</p>
        ) : (
          <div class="table-wrap">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {[...projects.value]
                  .sort((a, b) => b.created_at.localeCompare(a.created_at))
                  .map((p) => (
                    <tr>
                      <td class="name-cell">
                        <Link href={`/projects/${seg(p.id)}`} dir="auto">
                          {p.name}
                        </Link>
                      </td>
                      <td>{p.type}</td>
                      <td>{dateTime(p.created_at)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        )
      ) : null}
    </section>
  );
};
