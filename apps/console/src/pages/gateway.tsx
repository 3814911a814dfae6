// The gateway integration (spec operation 3): endpoint and use case shown; the token entered, sent once,
// never shown again (the API never answers it).
import { useState } from 'preact/hooks';
import { api, isNotFound } from '../api';
import { dateTime } from '../format';
import { ErrorNote, Loading, PageHead, useAction, useAsync } from '../ui/common';

export const GatewayPage = () => {
  const current = useAsync((signal) => api.getGatewayIntegration({ signal }), []);
  const integration = current.status === 'done' ? current.value : undefined;
  const extra = (integration as { extra?: { endpoint?: string; use_case?: string } } | undefined)?.extra;
  const [endpoint, setEndpoint] = useState<string | undefined>(undefined);
  const [useCase, setUseCase] = useState<string | undefined>(undefined);
  const [token, setToken] = useState('');
  const [saved, setSaved] = useState(false);
  const save = useAction(async () => {
    await api.upsertGatewayIntegration({ endpoint: endpoint ?? extra?.endpoint ?? '', use_case: useCase ?? extra?.use_case ?? '', token });
    // The token leaves the page's memory as soon as it is sent.
    setToken('');
    setEndpoint(undefined);
    setUseCase(undefined);
    setSaved(true);
    current.reload();
  });
  const missing = current.status === 'failed' && isNotFound(current.error);
  return (
    <section>
      <PageHead title="Gateway integration" subtitle="Where LLM judges are sent: an OpenAI-compatible endpoint relaying to your model provider." />
      {current.status === 'loading' && !current.value ? <Loading /> : null}
      {current.status === 'failed' && !missing ? <ErrorNote error={current.error} /> : null}
      <section class="card settings-section" aria-labelledby="gateway-state">
        <h2 id="gateway-state">Current</h2>
        {missing ? <p class="empty">No gateway integration is set.</p> : null}
        {integration ? (
          <dl class="facts">
            <dt>Endpoint</dt>
            <dd>
              <code dir="ltr">{extra?.endpoint ?? '—'}</code>
            </dd>
            <dt>Use case</dt>
            <dd>{extra?.use_case ?? '—'}</dd>
            <dt>Token</dt>
            <dd>Set (never shown)</dd>
            <dt>Updated</dt>
            <dd>{dateTime(integration.updated_at)}</dd>
          </dl>
        ) : null}
      </section>
      <form
        class="card stack"
        aria-labelledby="gateway-form"
        autoComplete="off"
        onSubmit={(e) => {
          e.preventDefault();
          setSaved(false);
          void save.run();
        }}
      >
        <h2 id="gateway-form">{integration ? 'Change it' : 'Set it'}</h2>
        <label class="field">
          <span>Endpoint (the base URL: /chat/completions is added)</span>
          <input type="url" required name="gateway-endpoint" dir="ltr" placeholder="https://gateway.example.com/v1" value={endpoint ?? extra?.endpoint ?? ''} onInput={(e) => setEndpoint(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Use case (upper-case: CUSTOMER_SUPPORT)</span>
          <input required name="gateway-use-case" pattern="[A-Z][A-Z0-9_]*" value={useCase ?? extra?.use_case ?? ''} onInput={(e) => setUseCase(e.currentTarget.value)} />
        </label>
        <label class="field">
          <span>Token (sent once, stored sealed, never shown again)</span>
          <input type="password" required name="gateway-token" autoComplete="new-password" spellcheck={false} value={token} onInput={(e) => setToken(e.currentTarget.value)} />
        </label>
        {save.error !== undefined ? <ErrorNote error={save.error} /> : null}
        {saved ? (
          <p class="note note-ok" role="status">
            Gateway integration saved. The token is stored sealed and will not be shown.
          </p>
        ) : null}
        <div class="form-actions">
          <button type="submit" class="button primary" disabled={save.busy}>
            Save gateway
          </button>
        </div>
      </form>
    </section>
  );
};
