// Date-times as pydantic's parser (speedate) reads them, for the codecs of primitives.codec.ts; apart
// from it (and from the package's index) so that tests can hold the usual form's quick reading to the
// full parser's answers.

export type DateTimeParse =
  | { readonly ok: true; readonly date: Date; readonly aware: boolean; readonly micros: number }
  | { readonly ok: false; readonly error: string };

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysIn = (y: number, m: number) => (m === 2 && isLeap(y) ? 29 : DAYS_IN_MONTH[m - 1]!);
const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';

/**
 * An RFC 3339 / ISO 8601 date-time as pydantic's parser (speedate) reads it, with its error
 * sentences: `YYYY-MM-DD[T t _ or space]HH:MM[:SS[.f…]][Z | ±HH[:]MM]`, or a bare date (midnight,
 * no offset). Fraction digits beyond microseconds are truncated; `date` holds the milliseconds and
 * `micros` the microseconds past them.
 */
export const parseDateTimeFully = (s: string): DateTimeParse => {
  const bad = (error: string): DateTimeParse => ({ ok: false, error });
  const num = (from: number, len: number) => Number(s.slice(from, from + len));
  const digits = (from: number, len: number) => {
    for (let i = from; i < from + len; i++) if (!isDigit(s[i])) return false;
    return true;
  };
  if (s.length < 10) return bad('input is too short');
  if (!digits(0, 4)) return bad('invalid character in year');
  if (s[4] !== '-') return bad('invalid date separator, expected `-`');
  if (!digits(5, 2)) return bad('invalid character in month');
  if (s[7] !== '-') return bad('invalid date separator, expected `-`');
  if (!digits(8, 2)) return bad('invalid character in day');
  const [year, month, day] = [num(0, 4), num(5, 2), num(8, 2)];
  if (month < 1 || month > 12) return bad('month value is outside expected range of 1-12');
  if (day < 1 || day > daysIn(year, month)) return bad('day value is outside expected range');
  const at = (h: number, mi: number, sec: number, ms: number, offsetMinutes: number) => {
    const d = new Date(0);
    d.setUTCFullYear(year, month - 1, day);
    d.setUTCHours(h, mi, sec, ms);
    return new Date(d.getTime() - offsetMinutes * 60_000);
  };
  if (s.length === 10) return { ok: true, date: at(0, 0, 0, 0, 0), aware: false, micros: 0 };
  if (!'Tt_ '.includes(s[10]!)) return bad('invalid datetime separator, expected `T`, `t`, `_` or space');
  let p = 11;
  if (s.length < p + 5) return bad('input is too short');
  if (!digits(p, 2)) return bad('invalid character in hour');
  if (s[p + 2] !== ':') return bad('invalid time separator, expected `:`');
  if (!digits(p + 3, 2)) return bad('invalid character in minute');
  const [hour, minute] = [num(p, 2), num(p + 3, 2)];
  p += 5;
  let second = 0;
  let millis = 0;
  let micros = 0;
  if (s[p] === ':') {
    if (!digits(p + 1, 2)) return bad('invalid character in second');
    second = num(p + 1, 2);
    p += 3;
    if (s[p] === '.' || s[p] === ',') {
      const start = ++p;
      while (isDigit(s[p])) p++;
      if (p === start) return bad('second fraction digits missing after `.`');
      millis = Number(s.slice(start, Math.min(p, start + 3)).padEnd(3, '0'));
      micros = p > start + 3 ? Number(s.slice(start + 3, Math.min(p, start + 6)).padEnd(3, '0')) : 0;
    }
  }
  if (hour > 23) return bad('hour value is outside expected range of 0-23');
  if (minute > 59) return bad('minute value is outside expected range of 0-59');
  if (second > 59) return bad('second value is outside expected range of 0-59');
  let offset: number | undefined;
  if (s[p] === 'Z' || s[p] === 'z') {
    offset = 0;
    p++;
  } else if (s[p] === '+' || s[p] === '-') {
    const sign = s[p] === '-' ? -1 : 1;
    p++;
    if (!digits(p, 2)) return bad('invalid timezone hour');
    const h = num(p, 2);
    p += 2;
    let m = 0;
    if (s[p] === ':') p++;
    if (p < s.length) {
      if (!digits(p, 2)) return bad('invalid timezone minute');
      m = num(p, 2);
      p += 2;
    }
    if (h >= 24 || m > 59) return bad('timezone offset must be less than 24 hours');
    offset = sign * (h * 60 + m);
  } else if (p < s.length && !isDigit(s[p])) {
    return bad(s[p] === ' ' ? 'unexpected extra characters at the end of the input' : 'invalid timezone sign');
  }
  if (p !== s.length) return bad('unexpected extra characters at the end of the input');
  return { ok: true, date: at(hour, minute, second, millis, offset ?? 0), aware: offset !== undefined, micros };
};

/** The digit at `i` of `s` as a number (any other character: outside 0..9). */
const digitAt = (s: string, i: number): number => s.charCodeAt(i) - 48;
/** `YYYY-MM-DDTHH:MM:SS`, fraction digits, then `Z` or `±HH:MM`: what clients send (toISOString, Python's isoformat). */
const USUAL_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)$/;

/**
 * parseDateTimeFully's answer for a date-time of the usual form with values in range, read from its
 * characters' codes without a string or closure made (every record of an ingest has one or two);
 * undefined for any other text, which the full parser reads (and whose error it words).
 */
const parseUsualDateTime = (s: string): DateTimeParse | undefined => {
  if (!USUAL_DATE_TIME.test(s)) return undefined;
  const two = (i: number) => digitAt(s, i) * 10 + digitAt(s, i + 1);
  const year = two(0) * 100 + two(2);
  const [month, day, hour, minute, second] = [two(5), two(8), two(11), two(14), two(17)];
  // Years before 100 (Date.UTC reads them as 19xx) and values out of range: the full parser.
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return undefined;
  let p = 19;
  let millis = 0;
  let micros = 0;
  if (s[p] === '.') {
    // Three digits of milliseconds, then three of microseconds, each padded with zeros; the rest truncated.
    let end = p + 1;
    while (s[end] !== 'Z' && s[end] !== '+' && s[end] !== '-') end++;
    for (let k = 0; k < 6; k++) {
      const d = p + 1 + k < end ? digitAt(s, p + 1 + k) : 0;
      if (k < 3) millis = millis * 10 + d;
      else micros = micros * 10 + d;
    }
    p = end;
  }
  let offset = 0;
  if (s[p] !== 'Z') {
    const [h, m] = [two(p + 1), two(p + 4)];
    if (h >= 24 || m > 59) return undefined;
    offset = (s[p] === '-' ? -1 : 1) * (h * 60 + m);
  }
  return { ok: true, date: new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000), aware: true, micros };
};

/** parseDateTimeFully, through parseUsualDateTime where the text has the usual form. */
export const parseDateTime = (s: string): DateTimeParse => parseUsualDateTime(s) ?? parseDateTimeFully(s);
