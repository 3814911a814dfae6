// Types of console-seed.cjs, for the TypeScript specs that seed through it.
import type { Credentials } from '@tracelight/client';

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
  options?: { traces?: number; seed?: number; project?: string; logStream?: string; scorerSuffix?: string; now?: number },
) => Promise<Seeded>;
export declare const traceOf: (i: number, at: number, rnd: () => number, extra?: { name?: string }) => Record<string, unknown>;
export declare const random: (seed: number) => () => number;
