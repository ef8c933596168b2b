// What a person or a load balancer sees while the standalone server works off a backlog: the
// health check and a dashboard-sized issue list, one of each started every INTERVAL_MS whether or
// not the last has answered (so a faster server is not asked more, and both variants of a
// comparison serve the same reads). Both reach the database through the backend thread, so they
// wait for whatever it is doing with a batch (docs/benchmarks.md, 2026-12-05).
import { percentile } from './load.ts';

const INTERVAL_MS = 200;

interface ReadTimes {
  health: number[];
  issues: number[];
}

interface Target {
  url: string;
  /** The read API's list of a project's issues, dashboard-sized. */
  issuesPath: string;
  token: string;
}

/** Starts sampling; `stop` waits for the reads under way and resolves with every answer's time in ms, a request that failed counting as Infinity. */
export function startReadSampler(target: Target): { stop(): Promise<ReadTimes> } {
  const times: ReadTimes = { health: [], issues: [] };
  const underWay = new Set<Promise<void>>();
  const read = (into: number[], path: string, headers: Record<string, string>) => {
    const started = performance.now();
    const done = fetch(`${target.url}${path}`, { headers })
      .then(async (response) => {
        await response.arrayBuffer();
        into.push(response.ok ? performance.now() - started : Infinity);
      })
      .catch(() => {
        into.push(Infinity);
      })
      .finally(() => underWay.delete(done));
    underWay.add(done);
  };
  const timer = setInterval(() => {
    read(times.health, '/healthz', {});
    read(times.issues, target.issuesPath, { authorization: `Bearer ${target.token}` });
  }, INTERVAL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all([...underWay]);
      return times;
    },
  };
}

export function describeReads({ health, issues }: ReadTimes): string {
  // A backlog worked off before the first tick leaves no answers: say so rather than print NaN.
  const figures = (ms: number[]) =>
    ms.length === 0
      ? 'no answers (the backlog cleared within the first interval)'
      : `p50 ${percentile(ms, 50).toFixed(0)} ms, max ${Math.max(...ms).toFixed(0)} ms (${ms.length} answers${ms.some((m) => m === Infinity) ? ', some failed' : ''})`;
  return `reads while catching up, every ${INTERVAL_MS} ms: /healthz ${figures(health)}; a list of 25 issues ${figures(issues)}`;
}
