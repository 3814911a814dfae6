// Projects and their runs: log streams and experiments.
import { MessageResponse, ProjectCreateRequest, ProjectPath, ProjectResponse, ProjectsQuery, RunCreateRequest, RunResponse } from '@tracelight/api-schema';
import { type ProjectId, type RunKind, asId } from '@tracelight/domain';
import { ProjectUseCases } from '@tracelight/use-cases';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { presentProject, presentRun } from './project.presenter';

const RunsQuery = t.partial({ name: t.string }, 'RunsQuery');

const RUN_COLLECTIONS: ReadonlyArray<readonly [string, RunKind, string]> = [
  ['log_streams', 'log_stream', 'log stream'],
  ['experiments', 'experiment', 'experiment'],
];

@injectable()
export class ProjectRoutes implements RouteGroup {
  constructor(@inject(ProjectUseCases) private readonly projects: ProjectUseCases) {}

  routes(): ReadonlyArray<Route> {
    const projects = this.projects;
    return [
      route({
        method: 'post',
        path: '/projects',
        summary: 'Create a project owned by the caller',
        auth: 'required',
        conflict: 'The caller has a project of that name',
        body: ProjectCreateRequest,
        response: ProjectResponse,
        handle: ({ principal, body }) => projects.create(principal, { name: body.name, type: body.type ?? 'gen_ai' }),
        present: presentProject,
      }),
      route({
        method: 'get',
        path: '/projects',
        summary: 'List the caller’s projects, optionally by name and type',
        auth: 'required',
        query: ProjectsQuery,
        response: t.array(ProjectResponse),
        handle: ({ principal, query }) =>
          projects.list(principal, {
            ...(query.project_name !== undefined ? { name: query.project_name } : {}),
            ...(query.type !== undefined ? { type: query.type } : {}),
          }),
        present: (ps) => ps.map(presentProject),
      }),
      route({
        method: 'get',
        path: '/projects/{project_id}',
        summary: 'One project',
        auth: 'required',
        params: ProjectPath,
        response: ProjectResponse,
        handle: ({ principal, params }) => projects.get(principal, asId<ProjectId>(params.project_id)),
        present: presentProject,
      }),
      route({
        method: 'delete',
        path: '/projects/{project_id}',
        summary: 'Delete a project with its runs and everything under them (traces, spans, sessions, settings): gone at once, purged in the background',
        auth: 'required',
        params: ProjectPath,
        // As DELETE of an API key answers: 200 and a message.
        response: MessageResponse,
        handle: ({ principal, params }) => projects.delete(principal, asId<ProjectId>(params.project_id)),
        present: () => ({ message: 'Project deleted' }),
      }),
      ...RUN_COLLECTIONS.flatMap(([collection, kind, noun]) => [
        route({
          method: 'post',
          path: `/projects/{project_id}/${collection}`,
          summary: `Create a ${noun} in a project`,
          auth: 'required',
          conflict: `The project has a ${noun} of that name`,
          params: ProjectPath,
          body: RunCreateRequest,
          response: RunResponse,
          handle: ({ principal, params, body }) =>
            projects.createRun(principal, asId<ProjectId>(params.project_id), kind, body.name),
          present: presentRun,
        }),
        route({
          method: 'get',
          path: `/projects/{project_id}/${collection}`,
          summary: `List the ${noun}s of a project`,
          auth: 'required',
          params: ProjectPath,
          query: RunsQuery,
          response: t.array(RunResponse),
          handle: ({ principal, params, query }) =>
            projects.listRuns(principal, asId<ProjectId>(params.project_id), kind, query.name),
          present: (runs) => runs.map(presentRun),
        }),
      ]),
    ];
  }
}
