// Small pieces every page uses: loading and error states, data loading that ends the session on a 401,
// a modal dialog, headings.
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { errorText } from '../api';
import { sessionEndedBy } from '../session';

/** An error as the API said it, announced to screen readers. */
export const ErrorNote = ({ error, title }: { error: unknown; title?: string }) => (
  <div class="note note-error" role="alert">
    {title ? <strong>{title}: </strong> : null}
    <span dir="auto">{errorText(error)}</span>
  </div>
);

export const Loading = ({ label = 'Loading…' }: { label?: string }) => (
  <p class="loading" role="status" aria-live="polite">
    {label}
  </p>
);

export type Async<T> =
  | { readonly status: 'loading'; readonly value?: T }
  | { readonly status: 'done'; readonly value: T }
  | { readonly status: 'failed'; readonly error: unknown; readonly value?: T };

/**
 * Loads with `load` whenever `deps` change; a newer load wins over a slower older one. A 401 ends the
 * session (the page then says so), any other error is the caller's to show. `reload` loads again.
 */
export const useAsync = <T,>(load: (signal: AbortSignal) => Promise<T>, deps: ReadonlyArray<unknown>): Async<T> & { reload: () => void } => {
  const [state, setState] = useState<Async<T>>({ status: 'loading' });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ status: 'loading', ...('value' in s && s.value !== undefined ? { value: s.value } : {}) }));
    load(controller.signal).then(
      (value) => !controller.signal.aborted && setState({ status: 'done', value }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        sessionEndedBy(error);
        setState({ status: 'failed', error });
      },
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
};

/** Runs an action (a form's submit): busy while it runs, its error kept to show, a 401 ending the session. */
export const useAction = <A extends unknown[], T>(act: (...args: A) => Promise<T>) => {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = async (...args: A): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await act(...args);
    } catch (e) {
      sessionEndedBy(e);
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, clearError: () => setError(undefined) };
};

/** A modal dialog (the platform's: focus kept inside, Escape closes it). */
export const Dialog = ({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) => {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-label={title} onClose={onClose} onCancel={onClose}>
      <header class="dialog-head">
        <h2>{title}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={onClose}>
          ×
        </button>
      </header>
      {open ? children : null}
    </dialog>
  );
};

export const PageHead = ({ title, subtitle, children }: { title: string; subtitle?: ComponentChildren; children?: ComponentChildren }) => (
  <header class="page-head">
    <div class="page-title">
      <h1 dir="auto">{title}</h1>
      {subtitle ? <p class="subtitle">{subtitle}</p> : null}
    </div>
    {children ? <div class="page-actions">{children}</div> : null}
  </header>
);

/** Copies text to the clipboard; says so for a moment. */
export const CopyButton = ({ text, label = 'Copy' }: { text: string; label?: string }) => {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        });
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
};
