// How many live tails each person has open at once, so one person's tabs cannot hold a poll
// loop each without end. Counted per process: behind several mcp replicas a person can open this
// many on each (every tail still ends after 10 minutes).

export const MAX_TAILS_PER_PERSON = 3;

export class TailSlots {
  private readonly open = new Map<number, number>();

  constructor(private readonly max = MAX_TAILS_PER_PERSON) {}

  /** A release function (idempotent) when the person has a slot free; undefined when all are taken. */
  take(userId: number): (() => void) | undefined {
    const count = this.open.get(userId) ?? 0;
    if (count >= this.max) return undefined;
    this.open.set(userId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left === 0) this.open.delete(userId);
      else this.open.set(userId, left);
    };
  }
}
