// Bundle assemblies run in the background of the request that finds every chunk present, at
// most `maxRunning` at a time in this process (ERRATA_UPLOAD_MAX_ASSEMBLIES) and one per
// project: each reads every chunk of its bundle (up to 1 GiB) and inflates and stores its
// files, so one token's invented bundles must not take the memory and disk of everyone else.
// An assembly that cannot start yet waits here, and its polls are answered "created" (the
// upload CLI keeps polling); a project may keep a few waiting, beyond which it gets 429.
import { RateLimitedError } from '../../core/errors.ts';

export const MAX_WAITING_ASSEMBLIES_PER_PROJECT = 8;

interface Job {
  projectId: number;
  key: string;
  run(): Promise<void>;
}

export class AssemblyQueue {
  private readonly running = new Set<number>();
  private readonly waiting: Job[] = [];

  constructor(readonly maxRunning: number) {}

  isWaiting(projectId: number, checksum: string): boolean {
    const key = keyOf(projectId, checksum);
    return this.waiting.some((job) => job.key === key);
  }

  /** Throws a RateLimitedError when the project already has as many assemblies waiting as it may. */
  checkRoom(project: { id: number; slug: string }): void {
    const waiting = this.waiting.filter((job) => job.projectId === project.id).length;
    if (waiting < MAX_WAITING_ASSEMBLIES_PER_PROJECT) return;
    throw new RateLimitedError(
      `${waiting} bundles of project "${project.slug}" are waiting to be assembled (one runs at a time): retry once they are done`,
      10,
    );
  }

  /** Runs `run` now if a slot is free and the project has none running, otherwise once they are. */
  submit(projectId: number, checksum: string, run: () => Promise<void>): void {
    this.waiting.push({ projectId, key: keyOf(projectId, checksum), run });
    this.startWhatCan();
  }

  private startWhatCan(): void {
    for (let i = 0; i < this.waiting.length && this.running.size < this.maxRunning;) {
      const job = this.waiting[i]!;
      if (this.running.has(job.projectId)) {
        i++;
        continue;
      }
      this.waiting.splice(i, 1);
      this.running.add(job.projectId);
      // run() records its own failures (the assembly's state); the queue only frees the slot.
      void job
        .run()
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(job.projectId);
          this.startWhatCan();
        });
    }
  }
}

function keyOf(projectId: number, checksum: string): string {
  return `${projectId}/${checksum}`;
}
