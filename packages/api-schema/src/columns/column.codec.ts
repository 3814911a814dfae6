// Spans Available Columns (spec operation 4).
import { RUN_KINDS, type RunKind } from '@tracelight/domain';
import * as E from 'fp-ts/Either';
import * as t from 'io-ts';
import { decodeBody } from '../shared/decode';
import { exactlyOneOf, WithRule } from '../shared/field-rule';
import { Nullable, Obj, UuidString } from '../shared/primitives.codec';
import type { ValidationError } from '../shared/validation-error';

/** The three body members that name a run, in the order of RUN_KINDS. */
export const RUN_SCOPE_FIELDS = ['log_stream_id', 'experiment_id', 'metrics_testing_id'] as const;
export type RunScopeField = (typeof RUN_SCOPE_FIELDS)[number];

export const RUN_SCOPE_MESSAGE = 'exactly one of log_stream_id, experiment_id or metrics_testing_id must be provided';

/** Every body that names a run (columns, traces, sessions, searches) names exactly one: checked and documented from this. */
export const RUN_SCOPE_RULE = exactlyOneOf(RUN_SCOPE_FIELDS, RUN_SCOPE_MESSAGE);

/** The run a body names (after the exactly-one rule held). */
export interface RunScope {
  readonly kind: RunKind;
  readonly runId: string;
}

/** The named run, or undefined unless exactly one of the three is non-null. */
export const runScopeOf = (body: { readonly [K in RunScopeField]?: string | null | undefined }): RunScope | undefined => {
  const given = RUN_SCOPE_FIELDS.flatMap((field, i) => {
    const id = body[field];
    return id === undefined || id === null ? [] : [{ kind: RUN_KINDS[i]!, runId: id }];
  });
  return given.length === 1 ? given[0] : undefined;
};

const SpansAvailableColumnsFields = Obj(
  'SpansAvailableColumnsRequest',
  {},
  { log_stream_id: Nullable(UuidString), experiment_id: Nullable(UuidString), metrics_testing_id: Nullable(UuidString) },
);

/**
 * Three optional UUIDs, exactly one of them non-null: otherwise one `value_error` at the object
 * itself (`loc: ['body']`, input the body as sent), after the UUIDs themselves decoded.
 */
export const SpansAvailableColumnsRequest = WithRule(SpansAvailableColumnsFields, RUN_SCOPE_RULE);
export type SpansAvailableColumnsRequest = t.TypeOf<typeof SpansAvailableColumnsRequest>;

/** Both steps for a Koa handler: `decodeSpansAvailableColumns(ctx.request.body)` → the named run, or detail[]. */
export const decodeSpansAvailableColumns = (body: unknown): E.Either<ValidationError[], RunScope> =>
  E.map((b: SpansAvailableColumnsRequest) => runScopeOf(b)!)(decodeBody(SpansAvailableColumnsRequest, body));

/** `display_value_levels` has one more entry than `buckets`. */
export const ColumnThreshold = t.type(
  { buckets: t.array(t.number), display_value_levels: t.array(t.string), inverted: t.boolean },
  'ColumnThreshold',
);

/** One column; `data_unit`, `allowed_values`, `roll_up_method` and `threshold` appear only where they apply. */
export const ColumnDescriptor = t.intersection(
  [
    t.type({
      id: t.string,
      label: t.string,
      description: t.string,
      category: t.string,
      group_label: t.string,
      data_type: t.string,
      filter_type: t.string,
      filterable: t.boolean,
      sortable: t.boolean,
      multi_valued: t.boolean,
      is_empty: t.boolean,
      is_optional: t.boolean,
      applicable_types: t.array(t.string),
    }),
    t.partial({ data_unit: t.string, allowed_values: t.array(t.string), roll_up_method: t.string, threshold: ColumnThreshold }),
  ],
  'ColumnDescriptor',
);

export const SpansAvailableColumnsResponse = t.type({ columns: t.array(ColumnDescriptor) }, 'SpansAvailableColumnsResponse');
