// Leader election on a coordination.k8s.io Lease, as client-go does it: the holder renews the
// lease every `retryMs`; another candidate takes it over only once it has gone unrenewed for
// `leaseSeconds`; every write carries the read resourceVersion, so two candidates racing for it
// cannot both win. A leader that cannot renew within `renewDeadlineMs` of its last renewal
// stops leading (and the operator process exits, to start over as a candidate): each request
// waits only what is left of that, so a slow renewal followed by a hung one cannot keep it
// leading past the lease another candidate then takes.
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import { isNotFound } from './kube.ts';

interface LeaderElectionOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseSeconds?: number;
  retryMs?: number;
  renewDeadlineMs?: number;
  onStartedLeading(): void;
  onStoppedLeading(): void;
  onError?(error: unknown): void;
  /** The Lease API; the client made from `config` when absent (a test gives one that stalls). */
  api?: Pick<CoordinationV1Api, 'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'>;
}

export function startLeaderElection(config: KubeConfig, options: LeaderElectionOptions): { stop(): Promise<void> } {
  const api = options.api ?? config.makeApiClient(CoordinationV1Api);
  const leaseSeconds = options.leaseSeconds ?? 15;
  const retryMs = options.retryMs ?? 2_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const { namespace, name, identity } = options;
  let leading = false;
  let lastRenewed = 0;
  let stopped = false;
  // Expiry is judged by this candidate's own clock: when it last saw the lease record change,
  // not the holder's renewTime, so clock skew between nodes cannot make two leaders.
  let observedRecord = '';
  let observedAt = 0;

  const lease = (current: V1Lease | undefined, now: Date): V1Lease => {
    const takingOver = current?.spec?.holderIdentity !== identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name,
        namespace,
        ...(current?.metadata?.resourceVersion ? { resourceVersion: current.metadata.resourceVersion } : {}),
      },
      spec: {
        holderIdentity: identity,
        leaseDurationSeconds: leaseSeconds,
        acquireTime: takingOver ? new V1MicroTime(now.getTime()) : current!.spec!.acquireTime!,
        renewTime: new V1MicroTime(now.getTime()),
        leaseTransitions: (current?.spec?.leaseTransitions ?? 0) + (takingOver && current ? 1 : 0),
      },
    };
  };

  /** One attempt: true if this candidate holds the lease afterwards. */
  const tryAcquireOrRenew = async (now: Date): Promise<boolean> => {
    let current: V1Lease | undefined;
    try {
      current = await api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (!current) {
      await api.createNamespacedLease({ namespace, body: lease(undefined, now) });
      return true;
    }
    const holder = current.spec?.holderIdentity;
    const record = `${holder}@${current.spec?.renewTime ? new Date(current.spec.renewTime).toISOString() : ''}`;
    if (record !== observedRecord) {
      observedRecord = record;
      observedAt = now.getTime();
    }
    const expired = observedAt + (current.spec?.leaseDurationSeconds ?? leaseSeconds) * 1000 < now.getTime();
    if (holder && holder !== identity && !expired) return false;
    // A conflict (409) means another candidate wrote first: it throws, and this round is lost.
    await api.replaceNamespacedLease({ name, namespace, body: lease(current, now) });
    return true;
  };

  const round = async () => {
    // The renewal counts from before the request: a slow answer must not stretch the lease.
    const now = new Date();
    // A leader waits only until its renew deadline: a full deadline per request let a slow
    // renewal, then a hung one, keep it leading some 20 s after its last renewal, past the 15 s
    // after which another candidate takes the lease.
    const waitMs = leading ? Math.max(0, lastRenewed + renewDeadlineMs - now.getTime()) : renewDeadlineMs;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no lease renewal within ${renewDeadlineMs} ms`)), waitMs);
    });
    try {
      const held = await Promise.race([tryAcquireOrRenew(now), deadline]);
      if (held) {
        lastRenewed = now.getTime();
        if (!leading) {
          leading = true;
          options.onStartedLeading();
        }
        return;
      }
      // Another candidate holds it: whatever this one believed, it does not lead.
      if (leading) {
        leading = false;
        options.onStoppedLeading();
      }
      return;
    } catch (error) {
      if ((error as { code?: number }).code !== 409) options.onError?.(error);
    } finally {
      clearTimeout(timer);
    }
    if (leading && Date.now() - lastRenewed >= renewDeadlineMs) {
      leading = false;
      options.onStoppedLeading();
    }
  };

  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  const loop = () => {
    if (stopped) return;
    current = round().finally(() => {
      if (!stopped) timer = setTimeout(loop, retryMs);
    });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
      if (leading) {
        leading = false;
        // Hand over at once instead of making the next leader wait out the lease.
        try {
          const held = await api.readNamespacedLease({ name, namespace });
          if (held.spec?.holderIdentity === identity) {
            await api.replaceNamespacedLease({
              name,
              namespace,
              body: { ...held, spec: { ...held.spec, renewTime: new V1MicroTime(0), holderIdentity: '' } },
            });
          }
        } catch (error) {
          options.onError?.(error);
        }
        options.onStoppedLeading();
      }
    },
  };
}
