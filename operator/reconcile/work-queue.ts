// A keyed work queue in the manner of client-go's: a key waiting is queued once however often it
// is added; a key being worked on is not handed to a second worker, and if added meanwhile it
// runs again afterwards; a failed key comes back after an exponential back-off (per key, reset
// by a success). Level-triggered: the handler reconciles the key's current state, so merging
// several adds into one run loses nothing.

interface WorkQueueOptions {
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  onError?: (key: string, error: unknown, retryInMs: number) => void;
}

export class WorkQueue {
  private readonly queued: string[] = [];
  private readonly waiting = new Set<string>();
  private readonly active = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  /** At most one delayed add per key: the earliest. */
  private readonly timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private workers = 0;
  private stopped = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly handle: (key: string) => Promise<void>,
    private readonly options: WorkQueueOptions = {},
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.active.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.waiting.has(key)) return;
    this.waiting.add(key);
    this.queued.push(key);
    this.pump();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.timers.set(key, { at, timer });
  }

  /** Resolves once nothing is queued or running (tests, shutdown). Delayed retries do not count. */
  idle(): Promise<void> {
    if (this.queued.length === 0 && this.active.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): Promise<void> {
    this.stopped = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.queued.length = 0;
    this.waiting.clear();
    return this.idle();
  }

  private pump(): void {
    const limit = this.options.concurrency ?? 2;
    while (this.workers < limit && this.queued.length > 0) {
      const key = this.queued.shift()!;
      this.waiting.delete(key);
      this.active.add(key);
      this.workers++;
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    try {
      await this.handle(key);
      this.failures.delete(key);
    } catch (error) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      const delay = Math.min(this.options.maxDelayMs ?? 300_000, (this.options.baseDelayMs ?? 500) * 2 ** (failures - 1));
      this.options.onError?.(key, error, delay);
      this.addAfter(key, delay);
    } finally {
      this.active.delete(key);
      this.workers--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
      if (this.queued.length === 0 && this.active.size === 0) {
        const waiters = this.idleWaiters;
        this.idleWaiters = [];
        waiters.forEach((resolve) => resolve());
      }
    }
  }
}
