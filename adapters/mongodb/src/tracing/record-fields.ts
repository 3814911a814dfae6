// Field names and regular-expression literals for log-record queries: pure, unit-tested here, since
// no MongoDB server runs in this project's CI.

/**
 * A metric's name as a field name. Scorer names are free text, and MongoDB reads a `.` in a field path
 * as a step into a nested document (a `$` in front as an operator, and BSON refuses a NUL), so those
 * characters, and `%` itself, are percent-encoded: a metric named `v1.2 judge` is stored, filtered and
 * sorted as `metrics.v1%2E2 judge`. So is the `_` of a metric named `_bsontype` alone (`%5Fbsontype`):
 * BSON takes a document with a member of that name for a BSON value and refuses it. No name encoded
 * before holds `%5F` (a `%` was `%25`), so documents written before read as they did.
 */
const METRIC_KEY_CHARS = /[%.$\u0000]/g;
const hexOf = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;
export const encodeMetricKey = (name: string): string => (name === '_bsontype' ? '%5Fbsontype' : name.replace(METRIC_KEY_CHARS, hexOf));
export const decodeMetricKey = (key: string): string => key.replace(/%(25|2E|24|00|5F)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/** A literal for the server's (PCRE) regular expressions; a NUL, which BSON cannot carry in a pattern, as `\x00`. */
export const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\u0000/g, '\\x00');
