// Domain → wire for stored traces, spans and sessions: every field the client sent, as it sent it.
import { preciseIso } from '@tracelight/api-schema';
import type { LogRecord, Page } from '@tracelight/domain';
import { isoOrNull } from '../shared/respond';

export const presentRecord = (r: LogRecord) => ({
  type: r.type,
  id: r.id,
  trace_id: r.traceId,
  parent_id: r.parentId,
  session_id: r.sessionId,
  project_id: r.projectId,
  run_id: r.runId,
  name: r.name,
  input: r.input,
  output: r.output,
  // To the microsecond when it was sent so (six fraction digits), else to the millisecond.
  created_at: preciseIso(r.createdAt, r.createdAtMicros),
  updated_at: isoOrNull(r.updatedAt),
  tags: r.tags,
  user_metadata: r.userMetadata,
  status_code: r.statusCode,
  external_id: r.externalId,
  dataset_input: r.datasetInput,
  dataset_output: r.datasetOutput,
  dataset_metadata: r.datasetMetadata,
  metrics: r.metrics,
  metric_info: r.metricInfo ?? {},
  is_complete: r.isComplete,
  has_children: r.hasChildren,
  step_number: r.stepNumber,
  progress_message: r.progressMessage,
  error_message: r.errorMessage,
  ...r.attributes,
});

export const presentRecordPage = (p: Page<LogRecord>) => ({
  records: p.items.map(presentRecord),
  starting_token: p.startingToken,
  limit: p.limit,
  paginated: true,
  next_starting_token: p.nextStartingToken,
});
