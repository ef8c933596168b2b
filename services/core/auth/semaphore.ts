// A counting semaphore: at most `limit` holders at once, the rest wait in arrival order, and at
// most `maxWaiting` of them: past that, run() refuses at once with the owner's error rather than
// queueing work no one will wait for. Used to cap concurrent password hashes, each of which takes
// ~100 ms of CPU and 128 MiB of memory.
export class Semaphore {
  private held = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly limit: number,
    private readonly queue: { maxWaiting: number; full: () => Error } = { maxWaiting: Infinity, full: () => new Error('never') },
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a semaphore needs a limit of at least 1, got ${limit}`);
  }

  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** How many wait for a slot now (for tests and metrics). */
  get queued(): number {
    return this.waiting.length;
  }

  private acquire(): Promise<void> {
    if (this.held < this.limit) {
      this.held++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.queue.maxWaiting) return Promise.reject(this.queue.full());
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next waiter, so `held` stays the same.
    if (next) next();
    else this.held--;
  }
}
