// Projects own runs; a project belongs to the user who created it.
import type { ProjectId, UserId } from '../shared/ids';

export const PROJECT_TYPES = ['gen_ai', 'llm_monitor', 'prompt_evaluation', 'training_inference'] as const;
export type ProjectType = (typeof PROJECT_TYPES)[number];

export interface Project {
  readonly id: ProjectId;
  readonly name: string;
  readonly type: ProjectType;
  readonly createdBy: UserId;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface ProjectFilter {
  readonly name?: string;
  readonly type?: ProjectType;
}

/**
 * What purging a retired project removed (one step, or all of them), and whether nothing of it is left.
 * Insights, scorer settings and column presence (one each per run at most) go with their runs and are
 * not counted.
 */
export interface PurgeStep {
  /** Log streams, experiments and metrics-testing runs. */
  readonly runs: number;
  /** Traces, spans and sessions. */
  readonly records: number;
  /** The project is gone with everything under it (or was already, or was never retired). */
  readonly finished: boolean;
}

/**
 * Records a purge step removes at most: each step is a write of its own, some tens of milliseconds,
 * so that other writes (SQLite has one writer at a time) go between the steps.
 */
export const PURGE_STEP_RECORDS = 1_000;

export const isVisibleTo = (project: Project, userId: UserId): boolean => project.createdBy === userId;
