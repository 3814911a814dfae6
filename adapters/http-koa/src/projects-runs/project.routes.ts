// Projects and their runs: log streams and experiments.
import {
  ExperimentCreateRequest,
  ExperimentResponse,
  LogStreamResponse,
  MessageResponse,
  ProjectCreateRequest,
  ProjectPath,
  ProjectResponse,
  ProjectsAllQuery,
  ProjectsQuery,
  RunCreateRequest,
} from '@tracelight/api-schema';
import { type Principal, type Project, type ProjectFilter, type ProjectId, asId } from '@tracelight/domain';
import { ProjectUseCases, type UseCase } from '@tracelight/use-cases';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import * as t from 'io-ts';
import { inject, injectable } from 'inversify';
import { type Route, type RouteGroup, route } from '../shared/route';
import { presentExperiment, presentProject, presentRun } from './project.presenter';

const RunsQuery = t.partial({ name: t.string }, 'RunsQuery');

@injectable()
export class ProjectRoutes implements RouteGroup {
  constructor(@inject(ProjectUseCases) private readonly projects: ProjectUseCases) {}

  routes(): ReadonlyArray<Route> {
    const projects = this.projects;
    // A project is only ever its creator's: the caller is its creator, and answers name them.
    const listed = (principal: Principal, filter: ProjectFilter) =>
      pipe(projects.list(principal, filter), TE.map((ps) => ps.map((project) => ({ project, principal }))));
    const one = (principal: Principal, found: UseCase<Project>) => pipe(found, TE.map((project) => ({ project, principal })));
    return [
      route({
        method: 'post',
        path: '/projects',
        summary: 'Create a project owned by the caller',
        auth: 'required',
        conflict: 'The caller has a project of that name',
        body: ProjectCreateRequest,
        response: ProjectResponse,
        handle: ({ principal, body }) => one(principal, projects.create(principal, { name: body.name, type: body.type ?? 'gen_ai' })),
        present: ({ project, principal }) => presentProject(project, principal),
      }),
      route({
        method: 'get',
        path: '/projects',
        summary: 'List the caller’s projects, optionally by name and type',
        auth: 'required',
        query: ProjectsQuery,
        response: t.array(ProjectResponse),
        handle: ({ principal, query }) =>
          listed(principal, {
            ...(query.project_name !== undefined ? { name: query.project_name } : {}),
            ...(query.type !== undefined ? { type: query.type } : {}),
          }),
        present: (ps) => ps.map(({ project, principal }) => presentProject(project, principal)),
      }),
      // Before /projects/{project_id}, which would take `all` for an id (422).
      route({
        method: 'get',
        path: '/projects/all',
        summary: 'List the caller’s projects, optionally of one type (the SDKs’ list_projects, getProjects)',
        description: 'The type is `type` or `project_type` (the JS SDK sends the latter); with both, `type` is read.',
        auth: 'required',
        query: ProjectsAllQuery,
        response: t.array(ProjectResponse),
        handle: ({ principal, query }) => {
          const type = query.type ?? query.project_type;
          return listed(principal, type !== undefined ? { type } : {});
        },
        present: (ps) => ps.map(({ project, principal }) => presentProject(project, principal)),
      }),
      route({
        method: 'get',
        path: '/projects/{project_id}',
        summary: 'One project',
        auth: 'required',
        params: ProjectPath,
        response: ProjectResponse,
        handle: ({ principal, params }) => one(principal, projects.get(principal, asId<ProjectId>(params.project_id))),
        present: ({ project, principal }) => presentProject(project, principal),
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
      route({
        method: 'post',
        path: '/projects/{project_id}/log_streams',
        summary: 'Create a log stream in a project, or answer the one of that name',
        description:
          'A name the project already has for a log stream answers that log stream (200), as the SDKs look a log stream up by name and create it when they find none, several at once (three parallel first calls of the JS SDK in streaming mode): each gets the one log stream, and none of their traces is lost.',
        auth: 'required',
        params: ProjectPath,
        body: RunCreateRequest,
        response: LogStreamResponse,
        handle: ({ principal, params, body }) =>
          projects.createRun(principal, asId<ProjectId>(params.project_id), 'log_stream', body.name, { existing: 'answer' }),
        present: presentRun,
      }),
      route({
        method: 'get',
        path: '/projects/{project_id}/log_streams',
        summary: 'List the log streams of a project',
        auth: 'required',
        params: ProjectPath,
        query: RunsQuery,
        response: t.array(LogStreamResponse),
        handle: ({ principal, params, query }) => projects.listRuns(principal, asId<ProjectId>(params.project_id), 'log_stream', query.name),
        present: (runs) => runs.map(presentRun),
      }),
      route({
        method: 'post',
        path: '/projects/{project_id}/experiments',
        summary: 'Create an experiment in a project',
        auth: 'required',
        conflict: 'The project has an experiment of that name',
        params: ProjectPath,
        body: ExperimentCreateRequest,
        response: ExperimentResponse,
        handle: ({ principal, params, body }) =>
          projects.createRun(principal, asId<ProjectId>(params.project_id), 'experiment', body.name, { taskType: body.task_type ?? null }),
        present: presentExperiment,
      }),
      route({
        method: 'get',
        path: '/projects/{project_id}/experiments',
        summary: 'List the experiments of a project',
        auth: 'required',
        params: ProjectPath,
        query: RunsQuery,
        response: t.array(ExperimentResponse),
        handle: ({ principal, params, query }) => projects.listRuns(principal, asId<ProjectId>(params.project_id), 'experiment', query.name),
        present: (runs) => runs.map(presentExperiment),
      }),
    ];
  }
}
