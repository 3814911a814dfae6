// Cutting text to a length without breaking a character.

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
