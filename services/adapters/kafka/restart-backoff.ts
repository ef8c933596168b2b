// How long a subscription waits before it replaces a consumer that ended. The wait doubles with
// each consumer in a row that ended soon after joining, and starts over only once one stayed a
// while: reset at every join, a fetch error that never cleared made the consumer join, fail and
// leave twice a second, rebalancing every other member of the group each time.

/** A consumer that stayed in the group this long was well: the next failure waits the least again. */
const WELL_AFTER_MS = 30_000;
const FIRST_WAIT_MS = 500;
/** Each attempt already retried for a few seconds inside the client; a broker back from a restart is found within 5 s. */
const LONGEST_WAIT_MS = 5_000;

export class RestartBackoff {
  private failures = 0;
  private joinedAt: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** The current consumer joined the group (its rebalances later join it again: the first counts). */
  joined(): void {
    this.joinedAt ??= this.now();
  }

  /** The current consumer ended: how long to wait before the next one. */
  ended(): number {
    if (this.joinedAt !== undefined && this.now() - this.joinedAt >= WELL_AFTER_MS) this.failures = 0;
    this.joinedAt = undefined;
    this.failures += 1;
    return Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(this.failures - 1, 4));
  }
}
