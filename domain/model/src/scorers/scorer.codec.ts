// Runtime descriptions of the scorer entities, so storage adapters decode what they read back with
// one definition. Parameterised by how a store represents dates (ISO text, BSON date, …).
import * as t from 'io-ts';
import type { ScorerId, ScorerVersionId, UserId } from '../shared/ids';
import type { ScorerDefaults, ScorerDisplay } from './scorer';
import type { ScorerVersion } from './scorer-version';

const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null]);
const brandedString = <B>() => t.string as unknown as t.Type<B, string, unknown>;
const Strings = t.readonlyArray(t.string);
const JsonObject = t.record(t.string, t.unknown);

export const ColumnThresholdCodec = t.type({ buckets: t.readonlyArray(t.number), displayValueLevels: Strings, inverted: t.boolean });

export const ScorerDefaultsCodec: t.Type<ScorerDefaults, unknown, unknown> = t.exact(
  t.partial({
    modelName: t.string,
    numJudges: t.number,
    cotEnabled: t.boolean,
    outputType: t.string,
    inputType: t.string,
    scoreableNodeTypes: Strings,
  }),
) as unknown as t.Type<ScorerDefaults, unknown, unknown>;

export const ScorerDisplayCodec: t.Type<ScorerDisplay, unknown, unknown> = t.exact(
  t.partial({ label: t.string, groupLabel: t.string, dataUnit: t.string, threshold: ColumnThresholdCodec }),
) as unknown as t.Type<ScorerDisplay, unknown, unknown>;

/** A date as JSON text holds it (ISO 8601): for stores that keep a version as its JSON text (both engines do). */
export const IsoDateText = new t.Type<Date, string, unknown>(
  'IsoDateText',
  (u): u is Date => u instanceof Date,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c);
    const d = new Date(u);
    return Number.isNaN(d.getTime()) ? t.failure(u, c) : t.success(d);
  },
  (d) => d.toISOString(),
);

export const scorerVersionCodec = (date: t.Type<Date, any, unknown>): t.Type<ScorerVersion, any, unknown> => {
  const stamps = { createdAt: date, updatedAt: date, createdBy: brandedString<UserId>() };
  const chainPollTemplate = t.type({
    template: t.string,
    metricSystemPrompt: nullable(t.string),
    metricDescription: nullable(t.string),
    valueFieldName: t.string,
    explanationFieldName: t.string,
    metricFewShotExamples: t.readonlyArray(t.type({ generationPromptAndResponse: t.string, evaluatingResponse: t.string })),
    responseSchema: nullable(JsonObject),
  });
  return t.type({
    id: brandedString<ScorerVersionId>(),
    scorerId: brandedString<ScorerId>(),
    version: t.number,
    ...stamps,
    modelName: nullable(t.string),
    numJudges: nullable(t.number),
    scoreableNodeTypes: nullable(Strings),
    cotEnabled: nullable(t.boolean),
    outputType: nullable(t.string),
    inputType: nullable(t.string),
    chainPollTemplate: nullable(chainPollTemplate),
    allowedModel: nullable(t.boolean),
    generatedScorer: nullable(
      t.type({
        id: t.string,
        name: t.string,
        chainPollTemplate,
        ...stamps,
        scoreableNodeTypes: Strings,
        scorerConfiguration: t.type({
          modelAlias: t.string,
          numJudges: t.number,
          outputType: t.string,
          scoreableNodeTypes: Strings,
          cotEnabled: t.boolean,
          groundTruth: t.boolean,
          multimodalCapabilities: Strings,
        }),
        instructions: t.string,
        userPrompt: t.string,
      }),
    ),
    registeredScorer: nullable(
      t.intersection([
        t.type({
          id: t.string,
          name: t.string,
          scoreType: nullable(t.string),
          ...stamps,
          dataType: t.string,
          scoreableNodeTypes: Strings,
          fileName: t.string,
          code: t.string,
        }),
        // Versions stored before code scorers ran have none (their roll-up is the average).
        t.partial({ chainAggregation: nullable(t.string) }),
      ]),
    ),
    finetunedScorer: nullable(
      t.type({
        id: t.string,
        name: t.string,
        loraTaskId: t.number,
        prompt: t.string,
        ...stamps,
        loraWeightsPath: t.string,
        slmInputType: t.string,
        slmOutputType: t.string,
        classNameToVocabIx: JsonObject,
        executor: t.string,
      }),
    ),
  });
};
