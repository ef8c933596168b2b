// The operator's view of each Errata as Prometheus gauges, read at scrape time from the
// informer's cache (what the last status write said): whether the resource is Ready, and each
// role's desired and ready replicas. The ErrataNotReady and ErrataRoleNoReadyReplicas alerts
// read these, so they work without kube-state-metrics.
import type { KubernetesObject } from '@kubernetes/client-node';
import { Gauge, type Registry } from 'prom-client';
import { errataStatus, ROLES, type ErrataStatus } from './api/errata-resource.ts';

export function registerStatusMetrics(registry: Registry, list: () => readonly KubernetesObject[]): void {
  /** Each cached Errata with its status (empty when it has none yet or it does not parse). */
  const statuses = function* (): Generator<{ namespace: string; name: string; status: ErrataStatus }> {
    for (const object of list()) {
      const namespace = object.metadata?.namespace;
      const name = object.metadata?.name;
      if (!namespace || !name) continue;
      const parsed = errataStatus.safeParse((object as { status?: unknown }).status ?? {});
      yield { namespace, name, status: parsed.success ? parsed.data : {} };
    }
  };
  // Each collect resets first: a deleted resource must not keep reporting its last figures.
  new Gauge({
    name: 'errata_operator_resource_ready',
    help: 'Whether each Errata resource is Ready (1) or not (0), as its Ready condition says.',
    labelNames: ['namespace', 'name'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, name, status } of statuses()) {
        const ready = status.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        this.set({ namespace, name }, ready ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'errata_operator_role_replicas',
    help: "Each Errata's replicas per role as its status reports them: state desired or ready.",
    labelNames: ['namespace', 'name', 'role', 'state'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { namespace, name, status } of statuses()) {
        for (const role of ROLES) {
          const counts = status.replicas?.[role];
          if (!counts) continue;
          this.set({ namespace, name, role, state: 'desired' }, counts.desired);
          this.set({ namespace, name, role, state: 'ready' }, counts.ready);
        }
      }
    },
  });
}
