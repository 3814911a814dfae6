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
 * What deleting a project removed: the project, and counts of what was under it. Insights and scorer
 * settings and column presence (one each per run at most) go with their runs and are not counted.
 */
export interface ProjectDeletion {
  readonly project: Project;
  /** Log streams, experiments and metrics-testing runs. */
  readonly runs: number;
  /** Traces, spans and sessions. */
  readonly records: number;
}

export const isVisibleTo = (project: Project, userId: UserId): boolean => project.createdBy === userId;
