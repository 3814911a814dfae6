// How values read on the page: times in the reader's zone, durations and numbers at a useful precision.

/** A timestamp in the reader's locale and zone, to the second. */
export const dateTime = (iso: string | null | undefined): string => {
  if (!iso) return '';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
};

/** A duration in milliseconds as people say it: 820 µs, 35 ms, 1.24 s, 2 min 5 s. */
export const duration = (ms: number): string => {
  if (!Number.isFinite(ms) || ms <= 0) return '0 ms';
  if (ms < 1) return `${Math.round(ms * 1000)} µs`;
  if (ms < 1000) return `${ms < 10 ? ms.toFixed(1) : Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
};

/** A number: integers whole, others to four significant digits. */
export const number = (n: number): string => (Number.isInteger(n) ? n.toLocaleString() : Number(n.toPrecision(4)).toLocaleString(undefined, { maximumFractionDigits: 6 }));

/** A number with its unit: a percentage's fraction as per cent. */
export const withUnit = (n: number, unit: string | undefined): string => (unit === 'percentage' ? `${number(n * 100)} %` : number(n));

/** At most `max` characters, with an ellipsis when cut (never inside a surrogate pair). */
export const truncate = (text: string, max: number): string => {
  if (text.length <= max) return text;
  const cut = Array.from(text.slice(0, max + 1)).slice(0, -1).join('');
  return `${cut}…`;
};

/** The first characters of an id, for a narrow cell (the whole id is in its title). */
export const shortId = (id: string): string => (id.length > 13 ? `${id.slice(0, 8)}…` : id);
