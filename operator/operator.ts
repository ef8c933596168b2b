// `errata operator`: watches Errata resources in every namespace (and the Deployments and Jobs
// it made, to notice rollouts and migrations finishing), and, while it holds the leader lease,
// reconciles each through the work queue; every resource again each resync period. Serves
// /healthz and /metrics. Losing the lease stops reconciling and ends the process, which its
// Deployment restarts as a fresh candidate.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  AppsV1Api,
  BatchV1Api,
  CustomObjectsApi,
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { Counter, Histogram } from 'prom-client';
import { createHttpApp } from '../services/runtime/http.ts';
import { createHttpServer, type HttpServerLimits } from '../services/runtime/http-server.ts';
import { closeServer } from '../services/runtime/graceful-close.ts';
import { listen } from '../services/runtime/lifecycle.ts';
import type { Logger } from '../services/runtime/logger.ts';
import { createMetrics } from '../services/runtime/metrics.ts';
import { GROUP, PLURAL, VERSION } from './api/errata-resource.ts';
import { FIELD_MANAGER, INSTANCE_LABEL, MANAGED_BY_LABEL } from './desired/metadata.ts';
import { Kube } from './reconcile/kube.ts';
import { startLeaderElection } from './reconcile/leader-election.ts';
import { registerStatusMetrics } from './status-metrics.ts';
import { Reconciler } from './reconcile/reconciler.ts';
import { WorkQueue } from './reconcile/work-queue.ts';

interface OperatorOptions {
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Where the leader lease lives (the operator's own namespace). */
  leaseNamespace: string;
  host: string;
  port: number;
  /** Limits of the /healthz and /metrics listener, as every role has them. */
  http: HttpServerLimits;
  resyncMs?: number;
  /** Unique per process; defaults to the host name and a random suffix. */
  identity?: string;
  leaseSeconds?: number;
  retryMs?: number;
  /** Called when the lease is lost; defaults to exiting the process. */
  onLostLease?: () => void;
}

type Watched = Informer<KubernetesObject> & ObjectCache<KubernetesObject>;

export async function startOperator(
  options: OperatorOptions,
): Promise<{ url: string; isLeader(): boolean; stop(): Promise<void> }> {
  const { kubeConfig, logger } = options;
  const metrics = createMetrics({ role: 'operator' });
  const passes = new Counter({
    name: 'errata_operator_reconcile_total',
    help: 'Reconcile passes by result (ok, error).',
    labelNames: ['result'],
    registers: [metrics.registry],
  });
  const passSeconds = new Histogram({
    name: 'errata_operator_reconcile_duration_seconds',
    help: 'How long a reconcile pass took.',
    registers: [metrics.registry],
  });
  const reconciler = new Reconciler(new Kube(kubeConfig));
  const queue = new WorkQueue(
    async (key) => {
      const stop = passSeconds.startTimer();
      try {
        const result = await reconciler.reconcile(key);
        passes.inc({ result: 'ok' });
        if (result.requeueAfterMs) queue.addAfter(key, result.requeueAfterMs);
      } catch (error) {
        passes.inc({ result: 'error' });
        throw error;
      } finally {
        stop();
      }
    },
    { onError: (key, error, retryInMs) => logger.warn({ err: error, resource: key, retryInMs }, 'reconcile failed; will retry') },
  );

  let leading = false;
  let stopping = false;
  const enqueue = (object: KubernetesObject) => {
    if (leading && object.metadata?.namespace && object.metadata.name)
      queue.add(`${object.metadata.namespace}/${object.metadata.name}`);
  };
  const enqueueOwner = (object: KubernetesObject) => {
    const instance = object.metadata?.labels?.[INSTANCE_LABEL];
    if (leading && instance && object.metadata?.namespace) queue.add(`${object.metadata.namespace}/${instance}`);
  };

  const custom = kubeConfig.makeApiClient(CustomObjectsApi);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const batch = kubeConfig.makeApiClient(BatchV1Api);
  const owned = `${MANAGED_BY_LABEL}=${FIELD_MANAGER}`;
  const erratas = makeInformer(
    kubeConfig,
    `/apis/${GROUP}/${VERSION}/${PLURAL}`,
    () => custom.listClusterCustomObject({ group: GROUP, version: VERSION, plural: PLURAL }) as never,
  ) as Watched;
  registerStatusMetrics(metrics.registry, () => erratas.list());
  const watches: Array<{ name: string; informer: Watched; onChange: (object: KubernetesObject) => void }> = [
    { name: 'erratas', informer: erratas, onChange: enqueue },
    {
      name: 'deployments',
      informer: makeInformer(
        kubeConfig,
        '/apis/apps/v1/deployments',
        () => apps.listDeploymentForAllNamespaces({ labelSelector: owned }) as never,
        owned,
      ) as Watched,
      onChange: enqueueOwner,
    },
    {
      name: 'jobs',
      informer: makeInformer(
        kubeConfig,
        '/apis/batch/v1/jobs',
        () => batch.listJobForAllNamespaces({ labelSelector: owned }) as never,
        owned,
      ) as Watched,
      onChange: enqueueOwner,
    },
  ];
  // Which watches are up: /healthz fails while one is down, so a stuck operator gets restarted.
  const watching = new Map<string, boolean>();
  for (const { name, informer, onChange } of watches) {
    for (const event of ['add', 'update', 'delete'] as const) informer.on(event, onChange);
    informer.on('connect', () => watching.set(name, true));
    // The informer stops on an error; start it again after a pause (it re-lists).
    informer.on('error', (error: unknown) => {
      if (stopping) return;
      watching.set(name, false);
      logger.warn({ err: error, informer: name }, 'watch failed; restarting');
      setTimeout(() => void informer.start().catch(() => {}), 2_000).unref();
    });
  }
  await Promise.all(watches.map(({ informer }) => informer.start()));
  for (const { name } of watches) if (!watching.has(name)) watching.set(name, true);

  const resync = setInterval(() => erratas.list().forEach(enqueue), options.resyncMs ?? 300_000);
  resync.unref();
  const election = startLeaderElection(kubeConfig, {
    namespace: options.leaseNamespace,
    name: 'errata-operator',
    identity: options.identity ?? `${hostname()}-${randomUUID().slice(0, 8)}`,
    ...(options.leaseSeconds ? { leaseSeconds: options.leaseSeconds } : {}),
    ...(options.retryMs ? { retryMs: options.retryMs } : {}),
    onStartedLeading() {
      leading = true;
      logger.info('leading: reconciling every Errata');
      erratas.list().forEach(enqueue);
    },
    onStoppedLeading() {
      const was = leading;
      leading = false;
      if (!was || stopping) return;
      logger.warn('lost the leader lease; stopping');
      (options.onLostLease ?? (() => process.exit(1)))();
    },
    onError: (error) => logger.warn({ err: error }, 'leader election round failed'),
  });

  const watchHealth = {
    name: 'watches',
    check: async () => {
      const down = [...watching].filter(([, up]) => !up).map(([name]) => name);
      if (down.length > 0) throw new Error(`not watching ${down.join(', ')}`);
    },
  };
  const app = createHttpApp({ logger, metrics, health: [watchHealth] });
  const server = createHttpServer(app.callback(), options.http, metrics);
  const address = await listen(server, options.host, options.port);
  return {
    url: `http://${options.host}:${address.port}`,
    isLeader: () => leading,
    async stop() {
      stopping = true;
      clearInterval(resync);
      leading = false;
      await queue.stop();
      // Hands the lease over at once, so a successor need not wait it out.
      await election.stop();
      await Promise.all(watches.map(({ informer }) => informer.stop()));
      await closeServer(server, 5_000);
    },
  };
}
