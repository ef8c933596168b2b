// Which records a live tail has not shown yet. Each poll reads the log store oldest first from
// `since()`: a few seconds back, because SDKs send logs in batches (every 5 s for @sentry/node)
// and several clients' batches arrive out of order, so a record can be stored after a newer one
// was shown. The ids seen in that window are kept, so a record is never shown twice, also when
// several share a timestamp; ids older than the window are forgotten. Pure: times come in.

/** How late (seconds, by its own timestamp) a record may arrive and still be shown. */
const TAIL_LATENESS_SECONDS = 15;

export class TailWindow {
  /** Record id -> its timestamp, for the records shown that are still inside the window. */
  private readonly seen = new Map<string, number>();

  /** @param openedAt float seconds: the tail shows records stamped from then on, not the history before. */
  constructor(
    private readonly openedAt: number,
    private readonly lateness = TAIL_LATENESS_SECONDS,
  ) {}

  /** Float seconds: where the next poll reads from, given the time now (float seconds). */
  since(now: number): number {
    return Math.max(this.openedAt, now - this.lateness);
  }

  /** The records of a poll not shown before, in the order given; remembers them and forgets ids older than `since`. */
  fresh<T extends { id: string; timestamp: number }>(records: readonly T[], since: number): T[] {
    for (const [id, timestamp] of this.seen) {
      if (timestamp < since) this.seen.delete(id);
    }
    const unseen = records.filter((record) => !this.seen.has(record.id));
    for (const record of unseen) this.seen.set(record.id, record.timestamp);
    return unseen;
  }
}
