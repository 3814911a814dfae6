// Run insights settings (spec operation 1: Upsert Insights Config).
import * as t from 'io-ts';
import { Bool, DateTimeOut, DateTimeWithOffset, Nullable, Obj, UuidOut, UuidString } from '../shared/primitives.codec';

/** Path of `/v2/projects/{project_id}/runs/{run_id}/insights-settings` (and the run-scoped routes). */
export const RunPath = t.type({ project_id: UuidString, run_id: UuidString }, 'RunPath');
export const RunInsightsPathParams = RunPath;

/** `enabled` (lax boolean, default false, as the spec says) and `start_time` (date-time with offset → Date, or null); both optional. */
export const LogstreamInsightConfig = Obj('LogstreamInsightConfig', {}, { enabled: Bool, start_time: Nullable(DateTimeWithOffset) }, { enabled: false });
export const RunInsightsSettingsSchema = Obj('RunInsightsSettingsSchema', {}, { logstream: Nullable(LogstreamInsightConfig) });
/**
 * The request body. An absent body, `{}`, `{"insights": null}` and `{"insights": {"logstream":
 * null}}` all mean the default (logstream.enabled false, start_time null: the domain's `completeInsights`).
 */
export const RunInsightsRequest = Obj('RunInsightsRequest', {}, { insights: Nullable(RunInsightsSettingsSchema) });
export type RunInsightsRequest = t.TypeOf<typeof RunInsightsRequest>;

// Response members carry the spec's schema names in the OpenAPI document (the request codecs above
// are inlined there, so the names do not collide).
export const LogstreamInsightConfigResponse = t.type(
  { enabled: t.boolean, start_time: t.union([DateTimeOut, t.null]) },
  'LogstreamInsightConfig',
);
export const RunInsightsSettingsResponse = t.type({ logstream: LogstreamInsightConfigResponse }, 'RunInsightsSettingsSchema');
/** Always the whole object: `start_time` in UTC ISO form (`2026-01-02T03:04:05.000Z`) or null. */
export const RunInsightsResponse = t.type({ insights: RunInsightsSettingsResponse, run_id: UuidOut }, 'RunInsightsResponse');
