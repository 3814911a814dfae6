// scorers, scorer_versions and run_scorer_settings rows ⇄ domain. JSON columns are decoded, dates revived.
import {
  type RunId,
  type RunScorerSettings,
  type Scorer,
  type ScorerId,
  type ScorerType,
  type ScorerVersion,
  type UserId,
  SCORER_TYPES,
  ScorerDefaultsCodec,
  ScorerDisplayCodec,
  IsoDateText,
  scorerVersionCodec,
} from '@tracelight/domain';
import * as t from 'io-ts';
import { IdString, MemoJsonText, MsDate, decodeOrThrow, nullable, row } from '../shared/row-codecs';


const ScorerRow = row({
  id: IdString<ScorerId>(),
  name: t.string,
  scorer_type: t.keyof(Object.fromEntries(SCORER_TYPES.map((s) => [s, null])) as Record<ScorerType, null>),
  description: t.string,
  tags: MemoJsonText(t.array(t.string), { name: 'scorer_tags' }),
  defaults: MemoJsonText(ScorerDefaultsCodec, { name: 'scorer_defaults' }),
  display: MemoJsonText(ScorerDisplayCodec, { name: 'scorer_display' }),
  created_by: IdString<UserId>(),
  created_at: MsDate,
  updated_at: MsDate,
});

export const scorerFromRow = (stored: unknown): Scorer => {
  const r = decodeOrThrow(ScorerRow, stored);
  return {
    id: r.id,
    name: r.name,
    scorerType: r.scorer_type,
    description: r.description,
    tags: r.tags,
    defaults: r.defaults,
    display: r.display,
    createdBy: r.created_by,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
};

export const scorerToRow = (s: Scorer) => ({
  id: s.id,
  name: s.name,
  scorer_type: s.scorerType,
  description: s.description,
  tags: JSON.stringify(s.tags),
  defaults: JSON.stringify(s.defaults),
  display: JSON.stringify(s.display),
  created_by: s.createdBy,
  created_at: s.createdAt.getTime(),
  updated_at: s.updatedAt.getTime(),
});

export const ScorerVersionJson = scorerVersionCodec(IsoDateText);

// Versions never change once written: the same row is decoded once.
const VersionRow = row({ body: MemoJsonText(ScorerVersionJson, { name: 'scorer_versions' }) });

export const versionFromRow = (stored: unknown): ScorerVersion => decodeOrThrow(VersionRow, stored).body;

export const versionToBody = (v: ScorerVersion): string => JSON.stringify(v);

const RunScorersRow = row({
  run_id: IdString<RunId>(),
  // sampleRate: absent in settings stored before sampling (read as every record).
  scorers: MemoJsonText(
    t.array(t.intersection([row({ scorerId: IdString<ScorerId>(), version: nullable(t.number) }), t.exact(t.partial({ sampleRate: t.number }))])),
    { name: 'run_scorer_settings' },
  ),
  updated_at: MsDate,
});

export const runScorersFromRow = (stored: unknown): RunScorerSettings => {
  const r = decodeOrThrow(RunScorersRow, stored);
  return { runId: r.run_id, scorers: r.scorers, updatedAt: r.updated_at };
};
