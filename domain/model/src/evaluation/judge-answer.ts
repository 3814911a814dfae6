// Reading one judge's answer: the JSON object it was asked for, its value read as the output type says.
import * as E from 'fp-ts/Either';
import type { ChainPollTemplate } from '../scorers/scorer-version';
import { JUDGE_OUTPUT_TYPES, type JudgeOutputType } from './judge-prompt';

/** One judge's verdict: a boolean, a number, a label or labels, with its explanation ('' when it gave none). */
export interface JudgeAnswer {
  readonly value: boolean | number | string | ReadonlyArray<string>;
  readonly explanation: string;
}

/** At most this much of an answer is quoted in a failure's message. */
const QUOTED = 200;
const quote = (s: string): string => JSON.stringify(s.length > QUOTED ? `${s.slice(0, QUOTED)}…` : s);

/**
 * The JSON object in an answer: the whole text, else a fenced ```json block, else the text from the
 * first `{` to the last `}` (models wrap JSON in words despite being asked not to).
 */
const jsonObjectIn = (content: string): unknown => {
  const candidates = [content.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(content);
  if (fenced?.[1] !== undefined) candidates.push(fenced[1].trim());
  const first = content.indexOf('{');
  const last = content.lastIndexOf('}');
  if (first !== -1 && last > first) candidates.push(content.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const parsed: unknown = JSON.parse(c);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed;
    } catch {
      // the next candidate
    }
  }
  return undefined;
};

const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** A number given as a number or as numeric text. */
const numberOf = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v.trim()) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};

/**
 * The value as the output type reads it, or undefined. Booleans take `true`/`false`, `yes`/`no` and 1/0
 * (as values or text); a percentage is a number from 0 to 1, or from 0 to 100 read as percent (judges
 * say 85 for 85 %); discrete and count values are whole numbers (count at least 0); a categorical label
 * is a non-blank string; multilabel labels a list of strings (one string is a list of one).
 */
export const readJudgeValue = (v: unknown, outputType: JudgeOutputType): JudgeAnswer['value'] | undefined => {
  switch (outputType) {
    case 'boolean': {
      if (typeof v === 'boolean') return v;
      const text = typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim().toLowerCase() : undefined;
      return text === undefined ? undefined : TRUE.has(text) ? true : FALSE.has(text) ? false : undefined;
    }
    case 'percentage': {
      const n = numberOf(v);
      if (n === undefined || n < 0 || n > 100) return undefined;
      return n > 1 ? n / 100 : n;
    }
    case 'float':
      return numberOf(v);
    case 'discrete': {
      const n = numberOf(v);
      return n !== undefined && Number.isInteger(n) ? n : undefined;
    }
    case 'count': {
      const n = numberOf(v);
      return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
    }
    case 'categorical':
      return typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
    case 'multilabel':
      if (typeof v === 'string') return v.trim() === '' ? [] : [v.trim()];
      return Array.isArray(v) && v.every((x) => typeof x === 'string') ? [...new Set((v as string[]).map((x) => x.trim()).filter((x) => x !== ''))] : undefined;
  }
};

/**
 * One judge's answer read: the object's `value_field_name` as the output type says, and its
 * `explanation_field_name` (text; absent is ''). Left, saying what was wrong and quoting the answer's
 * start, for an answer that is not such an object or whose value is not of the type: the judgment is
 * then asked again (a retry), and failed once retries run out.
 */
export const parseJudgeAnswer = (content: string, cpt: ChainPollTemplate, outputType: JudgeOutputType): E.Either<string, JudgeAnswer> => {
  const object = jsonObjectIn(content) as Record<string, unknown> | undefined;
  if (object === undefined) return E.left(`the judge's answer is not a JSON object: ${quote(content)}`);
  if (!Object.prototype.hasOwnProperty.call(object, cpt.valueFieldName))
    return E.left(`the judge's answer has no "${cpt.valueFieldName}": ${quote(content)}`);
  const value = readJudgeValue(object[cpt.valueFieldName], outputType);
  if (value === undefined)
    return E.left(`the judge's "${cpt.valueFieldName}" is not ${JUDGE_OUTPUT_TYPES[outputType].words}: ${quote(JSON.stringify(object[cpt.valueFieldName]) ?? 'undefined')}`);
  const said = object[cpt.explanationFieldName];
  const explanation = typeof said === 'string' ? said : said === undefined || said === null ? '' : JSON.stringify(said);
  return E.right({ value, explanation });
};
