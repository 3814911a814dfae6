// The three ways a body names a run (log stream, experiment, metrics testing): exactly one is given
// (RUN_SCOPE_RULE, checked by the route runner or the body's codec).
import { type ProjectId, type RunId, type RunKind, asId } from '@tracelight/domain';

export interface ScopeBody {
  readonly log_stream_id?: string | null;
  readonly experiment_id?: string | null;
  readonly metrics_testing_id?: string | null;
}

const SCOPES: ReadonlyArray<readonly [keyof ScopeBody, RunKind]> = [
  ['log_stream_id', 'log_stream'],
  ['experiment_id', 'experiment'],
  ['metrics_testing_id', 'metrics_testing'],
];

const given = (body: ScopeBody) =>
  SCOPES.flatMap(([field, kind]) => {
    const id = body[field];
    return id === undefined || id === null ? [] : [{ kind, id, field }];
  });

/** The one given scope; call after the body passed RUN_SCOPE_RULE (the route's `bodyRule`). */
export const runScopeOf = (body: ScopeBody): { kind: RunKind; id: string; field: keyof ScopeBody } => {
  const [scope] = given(body);
  if (!scope) throw new Error('runScopeOf called without a checked scope');
  return scope;
};

/** The use cases' view of the scope: the project from the path, the run from the body. */
export const runScopeIn = (projectId: string, body: ScopeBody): { projectId: ProjectId; kind: RunKind; runId: RunId } => {
  const scope = runScopeOf(body);
  return { projectId: asId<ProjectId>(projectId), kind: scope.kind, runId: asId<RunId>(scope.id) };
};
