// Domain → wire for projects and runs.
import { type Principal, type Project, type Run, DEFAULT_EXPERIMENT_TASK_TYPE } from '@tracelight/domain';
import { iso } from '../shared/respond';

/**
 * A project as its creator sees it (no one else does: the caller is its creator). `runs` is always empty
 * (ProjectResponse says why).
 */
export const presentProject = (p: Project, creator: Pick<Principal, 'userId' | 'email'>) => ({
  id: p.id,
  name: p.name,
  type: p.type,
  created_by: p.createdBy,
  created_by_user: { id: creator.userId, email: creator.email, first_name: null, last_name: null },
  runs: [],
  created_at: iso(p.createdAt),
  updated_at: iso(p.updatedAt),
});

export const presentRun = (r: Run) => ({
  id: r.id,
  name: r.name,
  project_id: r.projectId,
  created_by: r.createdBy,
  created_at: iso(r.createdAt),
  updated_at: iso(r.updatedAt),
});

/** An experiment stored before task types were kept answers the default. */
export const presentExperiment = (r: Run) => ({ ...presentRun(r), task_type: r.taskType ?? DEFAULT_EXPERIMENT_TASK_TYPE });
