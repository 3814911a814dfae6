// API keys: listed (never their secrets), created (the key shown once) and revoked.
import type { CreatedApiKey } from '@tracelight/client';
import { useState } from 'preact/hooks';
import { api } from '../api';
import { instantOf } from '../filters';
import { dateTime } from '../format';
import { CopyButton, Dialog, ErrorNote, Loading, PageHead, useAction, useAsync } from '../ui/common';

export const ApiKeysPage = () => {
  const keys = useAsync((signal) => api.listApiKeys({ signal }), []);
  const [description, setDescription] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [revoking, setRevoking] = useState<{ id: string; description: string } | undefined>(undefined);
  const create = useAction(async () => {
    const key = await api.createApiKey({ description, expires_at: instantOf(expires) ?? null });
    setDescription('');
    setExpires('');
    setCreated(key);
    keys.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api.revokeApiKey(id);
    setRevoking(undefined);
    keys.reload();
  });
  return (
    <section>
      <PageHead title="API keys" subtitle="Keys let SDKs and OpenTelemetry exporters send traces as you. A key is shown once, when it is made." />
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          void create.run();
        }}
      >
        <label class="field inline">
          <span>Description</span>
          <input required maxLength={1024} name="key-description" dir="auto" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        </label>
        <label class="field inline">
          <span>Expires (optional)</span>
          <input type="datetime-local" name="key-expires" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </label>
        <button type="submit" class="button primary" disabled={create.busy}>
          Create key
        </button>
      </form>
      {create.error !== undefined ? <ErrorNote error={create.error} /> : null}
      {keys.status === 'failed' ? <ErrorNote error={keys.error} /> : null}
      {keys.status === 'loading' && !keys.value ? <Loading /> : null}
      {keys.value && keys.value.length === 0 ? <p class="empty">No API key yet.</p> : null}
      {keys.value && keys.value.length > 0 ? (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Description</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Expires</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Revoke</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.value.map((k) => (
                <tr data-key-id={k.id}>
                  <td dir="auto" class="name-cell">
                    {k.description}
                  </td>
                  <td>
                    <code>{k.truncated}</code>
                  </td>
                  <td>{dateTime(k.created_at)}</td>
                  <td>{k.expires_at ? dateTime(k.expires_at) : 'never'}</td>
                  <td>{k.last_used ? dateTime(k.last_used) : 'never'}</td>
                  <td>
                    <button type="button" class="button danger" onClick={() => setRevoking({ id: k.id, description: k.description })}>
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Dialog open={created !== undefined} title="Your new API key" onClose={() => setCreated(undefined)}>
        {created ? (
          <div class="stack">
            <p>Copy it now: it is not shown again. Anyone who has it can act as you until it is revoked.</p>
            <code class="secret" data-testid="new-api-key">
              {created.api_key}
            </code>
            <div class="form-actions">
              <CopyButton text={created.api_key} label="Copy key" />
              <button type="button" class="button primary" onClick={() => setCreated(undefined)}>
                Done
              </button>
            </div>
          </div>
        ) : null}
      </Dialog>
      <Dialog open={revoking !== undefined} title="Revoke this key?" onClose={() => setRevoking(undefined)}>
        {revoking ? (
          <div class="stack">
            <p dir="auto">“{revoking.description}” stops working at once, for every client that uses it.</p>
            {revoke.error !== undefined ? <ErrorNote error={revoke.error} /> : null}
            <div class="form-actions">
              <button type="button" class="button" onClick={() => setRevoking(undefined)}>
                Cancel
              </button>
              <button type="button" class="button danger" disabled={revoke.busy} onClick={() => void revoke.run(revoking.id)}>
                Revoke key
              </button>
            </div>
          </div>
        ) : null}
      </Dialog>
    </section>
  );
};
