// Cutting text to a length without breaking a character, and finding text that holds half of one.

/**
 * The first `max` UTF-16 code units of `text` (all of it when shorter), one fewer when the last would
 * be the first half of a surrogate pair: a character outside the BMP is kept whole or left out, never
 * halved into an unpaired surrogate.
 */
export const prefixOf = (text: string, max: number): string => {
  if (text.length <= max) return text;
  const end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? end - 1 : end);
};

/**
 * Whether `text` holds half of a surrogate pair with no other half (an emoji cut in two): text that
 * cannot be stored as UTF-8 as it is (it comes back as U+FFFD), which the record API, OTLP and the
 * MongoDB adapter each look for. String.prototype.isWellFormed (Node 20; ES2024, beyond this build's
 * lib) answers at once for a string of one-byte characters and scans any other several times as fast
 * as /\p{Cs}/u.
 */
export const holdsLoneSurrogate = (text: string): boolean => !(text as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * How many characters (code points) `text` holds, as pydantic and JSON Schema's minLength/maxLength
 * count: an emoji is one, where `length` counts two UTF-16 units; a lone half of a pair is one.
 */
export const codePointLength = (text: string): number => {
  let n = 0;
  for (let i = 0; i < text.length; i++, n++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
};

/** Whether `text` has fewer than `min` characters, counted only where its UTF-16 length (n units hold n/2 to n characters) leaves it open. */
export const shorterThan = (text: string, min: number): boolean => text.length < min || (text.length < 2 * min && codePointLength(text) < min);

/** Whether `text` has more than `max` characters, counted only where its UTF-16 length leaves it open. */
export const longerThan = (text: string, max: number): boolean => text.length > max && (text.length > 2 * max || codePointLength(text) > max);
