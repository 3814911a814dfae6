// A background job of the server: a pass now, then another `everyMs` after each pass ends, until
// stopped; a stop lets the pass under way finish what it is doing (each pass asks `stopped` between its
// steps) and resolves then. The retention sweep and the purge of deleted projects run so.
export class Repeating {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private halted = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly everyMs: number,
  ) {}

  /** Whether `stop` was called: a pass stops between its steps. */
  get stopped(): boolean {
    return this.halted;
  }

  /** A pass now (unless one is under way), then `everyMs` after each pass ends. */
  start(): void {
    if (this.halted || this.running) return;
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (!this.halted) this.timer = setTimeout(() => this.start(), this.everyMs).unref();
    });
  }

  /** No pass or step starts after this; resolves once the one under way (if any) is done. */
  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }
}
