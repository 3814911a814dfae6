// The evaluation suites' ways of reading a run's scoring through the API: its status, waiting until it
// settles, and its records as a search finds them.
import type { Auth } from './http';
import type { World } from './world';

/** `GET …/metrics/status` of a run. */
export const scoringStatus = async (w: World, auth: Auth, project: string, logStream: string) =>
  w.ok(await w.call('GET', `/v2/projects/${project}/runs/${logStream}/metrics/status`, { auth }));

/** Polls the run's status until no job of the run is pending or computing (and at least `atLeast` ended), within a generous bound. */
export const settledScoring = async (w: World, auth: Auth, project: string, logStream: string, atLeast = 1) => {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const s = await scoringStatus(w, auth, project, logStream);
    const jobs = s.scorers.map((x: { jobs: Record<string, number> }) => x.jobs);
    const open = jobs.reduce((a: number, j: Record<string, number>) => a + j['pending']! + j['computing']!, 0);
    const ended = jobs.reduce((a: number, j: Record<string, number>) => a + j['succeeded']! + j['failed']! + j['error']! + j['not_applicable']! + j['not_computed']!, 0);
    if (open === 0 && ended >= atLeast) return s;
    if (Date.now() > deadline) throw new Error(`scoring did not settle: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** The records a search of the run's traces or spans finds. */
export const searchRecords = async (w: World, auth: Auth, project: string, logStream: string, scope: 'spans' | 'traces', body: Record<string, unknown> = {}) =>
  w.ok(await w.call('POST', `/v2/projects/${project}/${scope}/search`, { auth, json: { log_stream_id: logStream, ...body } })).records as Array<Record<string, any>>;
