// Client-side routing under /console: the address is the page's state (what is open, the filters, the
// sort, the page), so links, reloads and the back button give the same view.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';

export interface Location {
  /** The path under BASE, starting with `/`. */
  readonly path: string;
  readonly query: URLSearchParams;
}

const current = (): Location => {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search) };
};

const listeners = new Set<() => void>();
const changed = () => listeners.forEach((l) => l());
addEventListener('popstate', changed);

/** Opens a page of the console (a path under BASE, with its query). */
export const navigate = (href: string, options: { replace?: boolean } = {}): void => {
  const url = href.startsWith(BASE) ? href : `${BASE}${href}`;
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  changed();
};

/** The same page with its query changed: `undefined` removes a parameter. */
export const withQuery = (loc: Location, changes: Record<string, string | undefined>): string => {
  const query = new URLSearchParams(loc.query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') query.delete(k);
    else query.set(k, v);
  }
  const text = query.toString();
  return `${loc.path}${text ? `?${text}` : ''}`;
};

const hrefOf = (): string => `${location.pathname}${location.search}`;

/**
 * The address, as of the last render. A component starts listening in an effect, which runs after its
 * first paint: an address changed in between (a control used the moment it appeared, as the run page's
 * Rows) is caught up when it starts listening, or the component would keep the address it was made with.
 */
export const useLocation = (): Location => {
  const [state, setState] = useState(() => ({ href: hrefOf(), loc: current() }));
  useEffect(() => {
    const update = () => setState((s) => (s.href === hrefOf() ? s : { href: hrefOf(), loc: current() }));
    listeners.add(update);
    update();
    return () => void listeners.delete(update);
  }, []);
  return state.loc;
};

/** The parameters of `pattern` (`/projects/:project`) in `path`, or undefined when it does not match. */
export const match = (pattern: string, path: string): Record<string, string> | undefined => {
  const names: string[] = [];
  const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const m = new RegExp(`^${source}/?$`).exec(path);
  if (!m) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1]!)]));
};

/** A link within the console: a real href (open in a new tab works), followed without reloading the page. */
export interface LinkProps {
  readonly href: string;
  readonly children: ComponentChildren;
  readonly class?: string | undefined;
  readonly dir?: 'auto' | 'ltr' | 'rtl' | undefined;
  readonly title?: string | undefined;
  readonly 'aria-label'?: string | undefined;
  readonly 'aria-current'?: 'page' | 'true' | undefined;
}

export const Link = (props: LinkProps) => {
  const { href, children, ...rest } = props;
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a {...rest} href={`${BASE}${href}`} onClick={onClick}>
      {children}
    </a>
  );
};

/** A path segment for an id or name. */
export const seg = encodeURIComponent;
