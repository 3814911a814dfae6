// A run is a log stream, an experiment or a metrics-testing run inside one project.
import type { ProjectId, RunId, UserId } from '../shared/ids';

export const RUN_KINDS = ['log_stream', 'experiment', 'metrics_testing'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

export interface Run {
  readonly id: RunId;
  readonly projectId: ProjectId;
  readonly name: string;
  readonly kind: RunKind;
  readonly createdBy: UserId;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /**
   * An experiment's task type, the origin's `TaskType` number, kept as sent (its SDKs read it back);
   * null for other runs, and for experiments stored before it was kept (answered as the default).
   */
  readonly taskType: number | null;
}

/** The task type of an experiment created without one: the origin's SDKs send 16 (its generative AI task). */
export const DEFAULT_EXPERIMENT_TASK_TYPE = 16;
