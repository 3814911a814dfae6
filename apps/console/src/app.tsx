// The console's shell: the session (checked with the refresh cookie on load), the navigation, and the
// page the address names.
import type { ComponentChildren } from 'preact';
import { useEffect, useErrorBoundary, useState } from 'preact/hooks';
import { api, errorText } from './api';
import { ApiKeysPage } from './pages/api-keys';
import { GatewayPage } from './pages/gateway';
import { ProjectPage } from './pages/project';
import { ProjectsPage } from './pages/projects';
import { RunPage } from './pages/run';
import { RunSettingsPage } from './pages/run-settings';
import { ScorerPage, ScorersPage } from './pages/scorers';
import { SessionEndedPage, SignInPage } from './pages/sign-in';
import { TracePage } from './pages/trace';
import { Link, match, navigate, useLocation } from './router';
import { onSession, type SessionState, sessionEndedBy, sessionState, setSession } from './session';
import { ErrorNote } from './ui/common';

const NAV: ReadonlyArray<readonly [href: string, label: string, section: RegExp]> = [
  ['/', 'Projects', /^\/(projects|$)/],
  ['/scorers', 'Scorers', /^\/scorers/],
  ['/settings/gateway', 'Gateway', /^\/settings\/gateway/],
  ['/settings/api-keys', 'API keys', /^\/settings\/api-keys/],
];

/** The page for a path; runs are addressed by kind (log_streams, experiments), as the API names them. */
const pageOf = (path: string, query: URLSearchParams) => {
  let m: Record<string, string> | undefined;
  if ((m = match('/projects/:project/:kind/:run/traces/:trace', path))) return <TracePage {...run(m)} traceId={m['trace']!} spanId={query.get('span') ?? undefined} />;
  if ((m = match('/projects/:project/:kind/:run/settings', path))) return <RunSettingsPage {...run(m)} />;
  if ((m = match('/projects/:project/:kind/:run', path))) return <RunPage {...run(m)} />;
  if ((m = match('/projects/:project', path))) return <ProjectPage projectId={m['project']!} />;
  if ((m = match('/scorers/:scorer', path))) return <ScorerPage scorerId={m['scorer']!} />;
  if (match('/scorers', path)) return <ScorersPage />;
  if (match('/settings/gateway', path)) return <GatewayPage />;
  if (match('/settings/api-keys', path)) return <ApiKeysPage />;
  if (match('/', path)) return <ProjectsPage />;
  return (
    <section>
      <h1>Page not found</h1>
      <p>
        Nothing is at this address. <Link href="/">Go to the projects</Link>.
      </p>
    </section>
  );
};

/** A page that fails to render says so, with the error, instead of leaving the screen blank. */
const PageBoundary = ({ children }: { children: ComponentChildren }) => {
  const [error, reset] = useErrorBoundary();
  if (error)
    return (
      <section>
        <h1>This page could not be shown</h1>
        <ErrorNote error={error} />
        <button type="button" class="button" onClick={reset}>
          Try again
        </button>
      </section>
    );
  return <>{children}</>;
};

const run = (m: Record<string, string>) => ({ projectId: m['project']!, kind: m['kind'] === 'experiments' ? ('experiments' as const) : ('log_streams' as const), runId: m['run']! });

export const App = () => {
  const [session, setState] = useState<SessionState>(sessionState);
  const loc = useLocation();
  useEffect(() => onSession(setState), []);
  useEffect(() => {
    // The refresh cookie (if the browser holds one) resumes the session without a password.
    api.currentUser().then(
      (user) => setSession({ kind: 'signed-in', user }),
      (error: unknown) => {
        if (!sessionEndedBy(error)) setSession({ kind: 'signed-out', reason: errorText(error) });
        else setSession({ kind: 'signed-out' });
      },
    );
  }, []);

  if (session.kind === 'checking')
    return (
      <main class="center" aria-busy="true">
        <p role="status">Opening the console…</p>
      </main>
    );
  if (session.kind === 'signed-out') return <SignInPage reason={session.reason} />;
  if (session.kind === 'ended') return <SessionEndedPage reason={session.reason} />;

  const signOut = async () => {
    try {
      await api.endSession();
    } finally {
      setSession({ kind: 'signed-out' });
      navigate('/', { replace: true });
    }
  };
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <Link href="/" class="brand" aria-label="Tracelight home">
          <span class="brand-mark" aria-hidden="true" />
          Tracelight
        </Link>
        <nav aria-label="Main">
          <ul class="nav">
            {NAV.map(([href, label, section]) => (
              <li>
                <Link href={href} aria-current={section.test(loc.path) ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="account">
          <span class="account-email" dir="auto" title={session.user.email}>
            {session.user.email}
          </span>
          <button type="button" class="button" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" class="content" tabIndex={-1}>
        <PageBoundary key={loc.path}>{pageOf(loc.path, loc.query)}</PageBoundary>
      </main>
    </div>
  );
};
