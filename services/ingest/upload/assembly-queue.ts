// Bundle assemblies run in the background of the request that finds every chunk present, at
// most `maxRunning` at a time in this process (ERRATA_UPLOAD_MAX_ASSEMBLIES) and one per
// project: each reads every chunk of its bundle (up to 1 GiB) and inflates and stores its
// files, so one token's invented bundles must not take the memory and disk of everyone else.
// An assembly that cannot start yet waits here, and its polls are answered "created" (the
// upload CLI keeps polling); a project may keep a few waiting, beyond which it gets 429. A free
// slot goes to the project served longest ago, so that two busy projects cannot keep a third
// waiting behind all their bundles.
import { RateLimitedError } from '../../core/errors.ts';

export const MAX_WAITING_ASSEMBLIES_PER_PROJECT = 8;

interface Job {
  key: string;
  /** Unset while the request that reserved the place is still claiming the assembly. */
  run?: () => Promise<void>;
}

/** A place in the queue, taken before the assembly is claimed: start it, or give it back. */
interface QueuePlace {
  start(run: () => Promise<void>): void;
  release(): void;
}

export class AssemblyQueue {
  private readonly running = new Set<number>();
  /** Per project, its waiting jobs in the order they came; the map keeps projects in the order they came. */
  private readonly waiting = new Map<number, Job[]>();
  /** Per project, when it last started a job (a count of starts); never served counts as first. */
  private readonly served = new Map<number, number>();
  private starts = 0;

  constructor(readonly maxRunning: number) {}

  isWaiting(projectId: number, checksum: string): boolean {
    const key = keyOf(projectId, checksum);
    return this.waiting.get(projectId)?.some((job) => job.key === key) ?? false;
  }

  /**
   * Takes a place for the bundle at once (nothing is awaited between the check and the taking,
   * so concurrent requests cannot all pass the check), or throws a RateLimitedError when the
   * project has as many waiting as it may. Undefined when the bundle already has one.
   */
  reserve(project: { id: number; slug: string }, checksum: string): QueuePlace | undefined {
    if (this.isWaiting(project.id, checksum)) return undefined;
    const jobs = this.waiting.get(project.id) ?? [];
    if (jobs.length >= MAX_WAITING_ASSEMBLIES_PER_PROJECT) {
      throw new RateLimitedError(
        `${jobs.length} bundles of project "${project.slug}" are waiting to be assembled (one runs at a time): retry once they are done`,
        10,
      );
    }
    const job: Job = { key: keyOf(project.id, checksum) };
    jobs.push(job);
    this.waiting.set(project.id, jobs);
    return {
      start: (run) => {
        job.run = run;
        this.startWhatCan();
      },
      release: () => {
        this.remove(project.id, job);
        this.startWhatCan();
      },
    };
  }

  private startWhatCan(): void {
    while (this.running.size < this.maxRunning) {
      const next = this.next();
      if (!next) return;
      const { projectId, job, run } = next;
      this.remove(projectId, job);
      this.running.add(projectId);
      this.served.set(projectId, ++this.starts);
      // run() records its own failures (the assembly's state); the queue only frees the slot.
      void run()
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(projectId);
          this.startWhatCan();
        });
    }
  }

  /** The first ready job of the project, with none running, that was served longest ago. */
  private next(): { projectId: number; job: Job; run: () => Promise<void> } | undefined {
    let best: { projectId: number; job: Job; run: () => Promise<void> } | undefined;
    let bestServed = Infinity;
    for (const [projectId, jobs] of this.waiting) {
      if (this.running.has(projectId)) continue;
      const job = jobs.find((candidate) => candidate.run !== undefined);
      const served = this.served.get(projectId) ?? 0;
      if (job && served < bestServed) {
        best = { projectId, job, run: job.run! };
        bestServed = served;
      }
    }
    return best;
  }

  private remove(projectId: number, job: Job): void {
    const jobs = this.waiting.get(projectId);
    const at = jobs?.indexOf(job) ?? -1;
    if (at < 0) return;
    jobs!.splice(at, 1);
    if (jobs!.length === 0) this.waiting.delete(projectId);
  }
}

function keyOf(projectId: number, checksum: string): string {
  return `${projectId}/${checksum}`;
}
