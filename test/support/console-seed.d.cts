// Types of console-seed.cjs, for the TypeScript specs that seed through it.
import type { Credentials, RunScoringStatus, TracelightClient } from '@tracelight/client';
import type { StubRule } from '@tracelight/testkit';

export interface Seeded {
  readonly projectId: string;
  readonly projectName: string;
  readonly runId: string;
  readonly experimentId: string;
  /** The conversations' trace ids, in the order sent (newest first, then the right-to-left and the long-named one). */
  readonly traceIds: string[];
  readonly sessionIds: string[];
  readonly scorerIds: { readonly toxicity: string; readonly correctness: string };
  readonly tracesCount: number;
}

export declare const seedConsole: (
  baseUrl: string,
  credentials: Credentials,
  options?: { traces?: number; seed?: number; project?: string; logStream?: string; scorerSuffix?: string; now?: number; gateway?: string },
) => Promise<Seeded>;
export declare const traceOf: (i: number, at: number, rnd: () => number, extra?: { name?: string }) => Record<string, unknown>;
export declare const random: (seed: number) => () => number;
/** The seeded scorers' judges, as a rule of the testkit's stub. */
export declare const supportJudges: StubRule;
/** Polls the run's scoring status until nothing is queued or in hand and each in-use scorer has `jobs` jobs. */
export declare const scoringSettles: (client: TracelightClient, projectId: string, runId: string, jobs: number, withinMs?: number) => Promise<RunScoringStatus>;
export declare const QUESTIONS: ReadonlyArray<string>;
