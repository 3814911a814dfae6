// The calls waiting for an interpreter, and which runs next: owners in turn (round robin), an owner's
// uploads and jobs in turn, and uploads bounded per owner and in all (jobs are bounded by their workers).

/** A waiting call: whose, and whether a person waits for it (an upload) or a scoring job does. */
export interface QueuedCall {
  readonly tenant: string;
  readonly kind: 'upload' | 'job';
}

export interface FairQueueLimits {
  /** Uploads of one owner that may wait at once. */
  readonly uploadsPerOwner: number;
  /** Uploads of everyone that may wait at once. */
  readonly uploads: number;
}

/** Whether a call was let in: `mine`, its owner's uploads fill their share; `full`, everyone's fill the queue. */
export type Admission = 'queued' | 'mine' | 'full';

interface OwnerQueue<C> {
  readonly upload: C[];
  readonly job: C[];
  /** The kind taken last: the other goes first when both wait. */
  last: QueuedCall['kind'];
}

export class FairQueue<C extends QueuedCall> {
  private readonly owners = new Map<string, OwnerQueue<C>>();
  /** Owners with calls waiting, in their turn's order: one served goes to the back. */
  private turn: string[] = [];
  private uploads = 0;
  private count = 0;

  constructor(private readonly limits: FairQueueLimits) {}

  get size(): number {
    return this.count;
  }

  /** Owners with calls waiting. */
  tenants(): ReadonlyArray<string> {
    return this.turn;
  }

  admit(call: C): Admission {
    let q = this.owners.get(call.tenant);
    if (call.kind === 'upload') {
      if ((q?.upload.length ?? 0) >= this.limits.uploadsPerOwner) return 'mine';
      if (this.uploads >= this.limits.uploads) return 'full';
      this.uploads++;
    }
    if (q === undefined) {
      q = { upload: [], job: [], last: 'job' };
      this.owners.set(call.tenant, q);
      this.turn.push(call.tenant);
    }
    q[call.kind].push(call);
    this.count++;
    return 'queued';
  }

  /**
   * Takes the next call: the first owner in turn that `may` run one now (its share of interpreters not
   * taken), and of its calls the oldest of the kind not taken last when both kinds wait. That owner goes
   * to the back of the turn.
   */
  take(may: (tenant: string) => boolean): C | undefined {
    for (let i = 0; i < this.turn.length; i++) {
      const tenant = this.turn[i]!;
      if (!may(tenant)) continue;
      const q = this.owners.get(tenant)!;
      const kind: QueuedCall['kind'] = q.upload.length === 0 ? 'job' : q.job.length === 0 ? 'upload' : q.last === 'upload' ? 'job' : 'upload';
      const call = q[kind].shift()!;
      q.last = kind;
      if (kind === 'upload') this.uploads--;
      this.count--;
      this.turn.splice(i, 1);
      if (q.upload.length + q.job.length === 0) this.owners.delete(tenant);
      else this.turn.push(tenant);
      return call;
    }
    return undefined;
  }

  /** Every waiting call, taken out (the sandbox closes, or cannot start an interpreter). */
  drain(): C[] {
    const all = this.turn.flatMap((t) => {
      const q = this.owners.get(t)!;
      return [...q.upload, ...q.job];
    });
    this.owners.clear();
    this.turn = [];
    this.uploads = 0;
    this.count = 0;
    return all;
  }
}
