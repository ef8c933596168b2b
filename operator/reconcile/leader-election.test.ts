// The leader's renew deadline, over a Lease API whose answers the test times: a stalled API
// server is not something the real one can be made to be on demand.
import { KubeConfig, type CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLeaderElection } from './leader-election.ts';

type LeaseApi = Pick<CoordinationV1Api, 'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'>;

afterEach(() => {
  vi.useRealTimers();
});

describe('leader election', () => {
  it('stops leading within its renew deadline of the last renewal, though a slow renewal is followed by a hung one', async () => {
    vi.useFakeTimers({ now: 0 });
    let stored: V1Lease | undefined;
    /** How long each request takes, in order; past the list, requests never answer. */
    const delays = [0, 0, 0, 9_900];
    const answer = <T>(value: () => T): Promise<T> => {
      const delay = delays.shift();
      if (delay === undefined) return new Promise(() => {});
      return new Promise((resolve, reject) =>
        setTimeout(() => {
          try {
            resolve(value());
          } catch (error) {
            reject(error);
          }
        }, delay),
      );
    };
    const api: LeaseApi = {
      readNamespacedLease: () =>
        answer(() => {
          if (!stored) throw Object.assign(new Error('not found'), { code: 404 });
          return stored;
        }),
      createNamespacedLease: ({ body }) => answer(() => (stored = body)),
      replaceNamespacedLease: ({ body }) => answer(() => (stored = body)),
    } as LeaseApi;
    const events: Array<[string, number]> = [];
    const election = startLeaderElection(new KubeConfig(), {
      namespace: 'ops',
      name: 'errata-operator',
      identity: 'a',
      leaseSeconds: 15,
      retryMs: 2_000,
      renewDeadlineMs: 10_000,
      api,
      onStartedLeading: () => events.push(['started', Date.now()]),
      onStoppedLeading: () => events.push(['stopped', Date.now()]),
    });
    // 0: read (none), create: leading. 2,000: read, then a replace answered after 9,900 ms, so the
    // last renewal counts from 2,000. 13,900: the next round hangs.
    await vi.advanceTimersByTimeAsync(30_000);
    expect(events.map(([what]) => what)).toEqual(['started', 'stopped']);
    const [what, at] = events[1]!;
    expect(what).toBe('stopped');
    // Another candidate may take the lease 15 s after it last saw it renewed (2,000 at the earliest).
    expect(at).toBeLessThanOrEqual(2_000 + 10_000 + 2_000);
    expect(at).toBeLessThan(2_000 + 15_000);
    vi.useRealTimers();
    await Promise.race([election.stop(), new Promise((resolve) => setTimeout(resolve, 100))]);
  });
});
