// Signing in with email and password (the refresh cookie keeps the session), and the page shown when a
// session ends.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { setSession } from '../session';
import { ErrorNote } from '../ui/common';

export const SignInPage = ({ reason }: { reason?: string | undefined }) => {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await api.startSession(email, password);
      setSession({ kind: 'signed-in', user: await api.currentUser() });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="center">
      <form class="card sign-in" onSubmit={(e) => void submit(e)} aria-labelledby="sign-in-title">
        <div class="brand brand-large">
          <span class="brand-mark" aria-hidden="true" />
          Tracelight
        </div>
        <h1 id="sign-in-title">Sign in</h1>
        {reason && reason !== 'Not authenticated' ? <p class="note">{reason}</p> : null}
        <label class="field">
          <span>Email</span>
          <input type="email" name="username" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} autoFocus />
        </label>
        <label class="field">
          <span>Password</span>
          <input type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
        </label>
        {error !== undefined ? <ErrorNote error={error} /> : null}
        <button type="submit" class="button primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
};

export const SessionEndedPage = ({ reason }: { reason: string }) => (
  <main class="center">
    <section class="card" aria-labelledby="ended-title">
      <h1 id="ended-title">Your session has ended</h1>
      <p dir="auto">{reason === 'Not authenticated' ? 'You are signed out.' : reason}</p>
      <p>Sign in again to go on where you were.</p>
      <button type="button" class="button primary" onClick={() => setSession({ kind: 'signed-out' })} autoFocus>
        Sign in again
      </button>
    </section>
  </main>
);
