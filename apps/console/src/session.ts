// Who is signed in, and what ends it: any call answered 401 ends the session for the whole page, which
// then shows why (the API's sentence) and the way back in.
import type { User } from '@tracelight/client';
import { endsSession, errorText } from './api';

export type SessionState =
  | { readonly kind: 'checking' }
  | { readonly kind: 'signed-out'; readonly reason?: string }
  | { readonly kind: 'ended'; readonly reason: string }
  | { readonly kind: 'signed-in'; readonly user: User };

const listeners = new Set<(state: SessionState) => void>();
let state: SessionState = { kind: 'checking' };

export const sessionState = (): SessionState => state;

export const setSession = (next: SessionState): void => {
  state = next;
  listeners.forEach((l) => l(next));
};

export const onSession = (listener: (state: SessionState) => void): (() => void) => {
  listeners.add(listener);
  return () => void listeners.delete(listener);
};

/**
 * Every failed call passes through here: a 401 while signed in ends the session (the page says why),
 * and is true; any other error is the caller's to show.
 */
export const sessionEndedBy = (error: unknown): boolean => {
  if (!endsSession(error)) return false;
  if (state.kind === 'signed-in') setSession({ kind: 'ended', reason: errorText(error) });
  return true;
};
