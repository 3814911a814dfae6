// A counting semaphore: at most `size` holders at once, the others waiting in arrival order.
export class Semaphore {
  private held = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly size: number) {}

  get inUse(): number {
    return this.held;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Nobody holds it and nobody waits. */
  get idle(): boolean {
    return this.held === 0 && this.queue.length === 0;
  }

  acquire(): Promise<void> {
    if (this.held < this.size) {
      this.held += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  /** Hands the place to the first waiter, if any (it then holds it without counting again). */
  release(): void {
    const next = this.queue.shift();
    if (next !== undefined) next();
    else this.held -= 1;
  }
}
