// The Helm chart renders (`helm template`, helm built from the Go module proxy by kube-up.sh) and
// the API server accepts every rendered object (server-side dry run), the CRD included; the
// operator's RBAC covers what the reconciler does.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, PatchStrategy } from '@kubernetes/client-node';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/standalone-server.ts';
import {
  applyCrd,
  applyPrometheusRuleCrd,
  applyServiceMonitorCrd,
  clients,
  createErrata,
  finishJob,
  freshNamespace,
  getErrata,
  patchErrataSpec,
  rawApply,
  sampleSpec,
  startTestOperator,
} from '../support/kube-cluster.ts';
import { eventually } from '../support/standalone-server.ts';
import { inject } from 'vitest';

const kube = clients();

function helm(args: string[]): string {
  return execFileSync(inject('kube').helm, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `helm template` of the chart into `namespace` with these flags and `--set` values, as objects. */
function renderChart(namespace: string, options: { release?: string; flags?: string[]; set: string[] }): any[] {
  const args = ['template', options.release ?? 'errata', join('charts', 'errata'), '--namespace', namespace];
  args.push(...(options.flags ?? []), ...options.set.flatMap((value) => ['--set', value]));
  return parseAllDocuments(helm(args))
    .map((d) => d.toJS())
    .filter(Boolean);
}

describe('the Helm chart', () => {
  it('renders, and the API server accepts every object it renders', async () => {
    await applyCrd(kube);
    const namespace = await freshNamespace(kube);
    const objects = renderChart(namespace, { flags: ['--include-crds'], set: ['image.repository=registry.example.com/errata'] });
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    for (const object of objects) {
      if (object.kind === 'CustomResourceDefinition') {
        await rawApply(
          kube.config,
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${object.metadata.name}`,
          object,
          true,
        );
        continue;
      }
      if (!['ClusterRole', 'ClusterRoleBinding'].includes(object.kind)) object.metadata.namespace = namespace;
      await kube.objects.patch(object, undefined, 'All', 'errata-tests', true, PatchStrategy.ServerSideApply);
    }
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: 'registry.example.com/errata:0.1.0',
      args: ['operator'],
    });
  });

  it('renders the shipped rules as a PrometheusRule and the dashboard as a ConfigMap for Grafana, which the API server accepts', async () => {
    await applyPrometheusRuleCrd(kube);
    const namespace = await freshNamespace(kube);
    const objects = renderChart(namespace, {
      set: [
        'monitoring.prometheusRule.enabled=true',
        'monitoring.prometheusRule.labels.release=prometheus',
        'monitoring.grafanaDashboard.enabled=true',
      ],
    });
    const monitoring = join(REPO_ROOT, 'charts', 'errata', 'monitoring');
    const rule = objects.find((o) => o.kind === 'PrometheusRule');
    expect(rule.metadata.labels.release).toBe('prometheus');
    expect(rule.spec).toEqual(parseYaml(readFileSync(join(monitoring, 'errata-rules.yaml'), 'utf8')));
    const dashboard = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboard'));
    expect(dashboard.metadata.labels.grafana_dashboard).toBe('1');
    expect(JSON.parse(dashboard.data['errata-dashboard.json'])).toEqual(
      JSON.parse(readFileSync(join(monitoring, 'errata-dashboard.json'), 'utf8')),
    );
    for (const object of [rule, dashboard]) {
      await kube.objects.patch(object, undefined, 'All', 'errata-tests', true, PatchStrategy.ServerSideApply);
    }
    // The tests of the rules stay out of the packaged chart.
    const packaged = helm(['package', join('charts', 'errata'), '--destination', await mkdtemp(join(tmpdir(), 'chart-'))]);
    const archive = packaged.trim().split(' ').pop()!;
    const listing = execFileSync('tar', ['-tzf', archive], { encoding: 'utf8' });
    expect(listing).toContain('errata/monitoring/errata-rules.yaml');
    expect(listing).not.toContain('.test.');
  });

  it("scrapes the operator's own metrics with a ServiceMonitor when asked, keeping the series' namespace", async () => {
    await applyServiceMonitorCrd(kube);
    const namespace = await freshNamespace(kube);
    expect(renderChart(namespace, { set: [] }).some((o) => o.kind === 'ServiceMonitor')).toBe(false);
    const objects = renderChart(namespace, {
      set: ['monitoring.serviceMonitor.enabled=true', 'monitoring.serviceMonitor.labels.release=prometheus'],
    });
    const monitor = objects.find((o) => o.kind === 'ServiceMonitor');
    const service = objects.find((o) => o.kind === 'Service');
    expect(monitor.metadata.labels.release).toBe('prometheus');
    expect(monitor.spec.selector.matchLabels).toEqual(service.spec.selector);
    expect(Object.entries(service.spec.selector).every(([k, v]) => service.metadata.labels[k] === v)).toBe(true);
    expect(monitor.spec.endpoints).toEqual([{ port: service.spec.ports[0].name, path: '/metrics', honorLabels: true }]);
    await kube.objects.patch(monitor, undefined, 'All', 'errata-tests', true, PatchStrategy.ServerSideApply);
  });

  it('refuses values its schema does not allow', () => {
    expect(() => helm(['template', 'errata', join('charts', 'errata'), '--set', 'replicas=0'])).toThrow(/replicas/);
    expect(() => helm(['template', 'errata', join('charts', 'errata'), '--set', 'colour=blue'])).toThrow(/colour/);
  });

  it("grants the operator enough to run an Errata: an operator on the chart's ServiceAccount does", async () => {
    await applyCrd(kube);
    const namespace = await freshNamespace(kube);
    const release = `rbac-${namespace}`;
    const objects = renderChart(namespace, { release, set: ['image.repository=r/errata'] }).filter((o) =>
      ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding'].includes(o.kind),
    );
    for (const object of objects) {
      if (!object.kind.startsWith('Cluster')) object.metadata.namespace = namespace;
      await kube.objects.patch(object, undefined, undefined, 'errata-tests', true, PatchStrategy.ServerSideApply);
    }
    const account = objects.find((o) => o.kind === 'ServiceAccount').metadata.name;
    const token = await kube.core.createNamespacedServiceAccountToken({
      name: account,
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const asOperator = new KubeConfig();
    asOperator.loadFromOptions({
      clusters: [{ name: 'test', server: inject('kube').url, skipTLSVerify: true }],
      users: [{ name: 'operator', token: token.status!.token }],
      contexts: [{ name: 'test', cluster: 'test', user: 'operator' }],
      currentContext: 'test',
    });
    const operator = await startTestOperator({ kubeConfig: asOperator, leaseNamespace: namespace });
    try {
      await eventually(async () => (operator.isLeader() ? true : undefined), 'the operator to lead with its own rights');
      await createErrata(kube, namespace, 'rbac', sampleSpec());
      const job = await eventually(async () => (await kube.batch.listNamespacedJob({ namespace })).items[0], 'the migration Job');
      await finishJob(kube, namespace, job.metadata!.name!, 'Complete');
      await eventually(
        async () => ((await kube.apps.listNamespacedDeployment({ namespace })).items.length === 3 ? true : undefined),
        'the Deployments, applied with the chart’s rights',
      );
      const errata = await eventually(async () => {
        const current = await getErrata(kube, namespace, 'rbac');
        return current.status?.migratedVersion === '0.1.0' ? current : undefined;
      }, 'the status, written with the chart’s rights');
      expect(errata.status.observedGeneration).toBe(errata.metadata.generation);
      // Pruning deletes with those rights too.
      await patchErrataSpec(kube, namespace, 'rbac', { ingress: null });
      await eventually(
        async () =>
          (await kube.objects.list('networking.k8s.io/v1', 'Ingress', namespace)).items.length === 0 ? true : undefined,
        'the ingress pruned',
      );
      // And it cannot read Secrets.
      const secrets = asOperator.makeApiClient(CoreV1Api);
      await expect(secrets.listNamespacedSecret({ namespace })).rejects.toMatchObject({ code: 403 });
    } finally {
      await operator.stop();
    }
  });
});
