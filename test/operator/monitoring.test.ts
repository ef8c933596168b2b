// The operator's part in monitoring, against the real kube-apiserver: with the Prometheus
// Operator's PrometheusRule CRD installed, an Errata with spec.monitoring.prometheusRule gets a
// PrometheusRule holding exactly the shipped rules file, pruned when switched off; and the
// operator's /metrics serves every errata_operator_ series the rules read, with their labels.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { startOperator } from '../../operator/operator.ts';
import {
  applyCrd,
  applyPrometheusRuleCrd,
  clients,
  createErrata,
  finishJob,
  freshNamespace,
  patchErrataSpec,
  sampleSpec,
  startTestOperator,
} from '../support/kube-cluster.ts';
import { startPrometheus } from '../support/prometheus-server.ts';
import { eventually, REPO_ROOT } from '../support/standalone-server.ts';
import { dashboardQueries } from '../../charts/errata/monitoring/dashboard-queries.ts';

const kube = clients();
const RULES_TEXT = readFileSync(join(REPO_ROOT, 'charts', 'errata', 'monitoring', 'errata-rules.yaml'), 'utf8');
const RULES = parse(RULES_TEXT);
let operator: Awaited<ReturnType<typeof startOperator>>;

beforeAll(async () => {
  await applyCrd(kube);
  await applyPrometheusRuleCrd(kube);
  operator = await startTestOperator({ kubeConfig: kube.config, leaseNamespace: await freshNamespace(kube), resyncMs: 2_000 });
  await eventually(async () => (operator.isLeader() ? true : undefined), 'the operator to lead');
}, 120_000);
afterAll(async () => {
  await operator?.stop();
});

const prometheusRules = async (namespace: string) =>
  (await kube.objects.list('monitoring.coreos.com/v1', 'PrometheusRule', namespace)).items as any[];

describe('the operator and Prometheus', () => {
  it('makes a PrometheusRule with the shipped rules when asked, and prunes it when switched off', async () => {
    const namespace = await freshNamespace(kube);
    await createErrata(kube, namespace, 'watched', { ...sampleSpec(), monitoring: { prometheusRule: true } });
    const job = await eventually(async () => (await kube.batch.listNamespacedJob({ namespace })).items[0], 'the migration Job');
    await finishJob(kube, namespace, job.metadata!.name!, 'Complete');
    const [rule] = await eventually(async () => {
      const rules = await prometheusRules(namespace);
      return rules.length > 0 ? rules : undefined;
    }, 'the PrometheusRule');
    expect(rule.metadata.name).toBe('watched');
    expect(rule.metadata.ownerReferences[0]).toMatchObject({ kind: 'Errata', name: 'watched' });
    expect(rule.spec).toEqual(RULES);

    await patchErrataSpec(kube, namespace, 'watched', { monitoring: { prometheusRule: false } });
    await eventually(
      async () => ((await prometheusRules(namespace)).length === 0 ? true : undefined),
      'the PrometheusRule pruned',
    );
  });

  it('serves every errata_operator_ series the rules and the dashboard read, labelled as they expect', async () => {
    const namespace = await freshNamespace(kube);
    await createErrata(kube, namespace, 'scraped', sampleSpec());
    const job = await eventually(async () => (await kube.batch.listNamespacedJob({ namespace })).items[0], 'the migration Job');
    await finishJob(kube, namespace, job.metadata!.name!, 'Complete');
    const text = await eventually(async () => {
      const body = await (await fetch(`${operator.url}/metrics`)).text();
      return body.includes(
        `errata_operator_role_replicas{namespace="${namespace}",name="scraped",role="dispatcher",state="desired"}`,
      )
        ? body
        : undefined;
    }, 'the operator to report the new resource');
    expect(text).toMatch(new RegExp(`errata_operator_resource_ready\\{namespace="${namespace}",name="scraped"\\} 0`));
    expect(text).toMatch(/errata_operator_reconcile_total\{result="ok"\} \d+/);
    expect(text).toMatch(/errata_build_info\{version="[^"]+",role="operator"\} 1/);
    const referenced = new Set(JSON.stringify(RULES).match(/errata_operator_[a-z_]+/g));
    expect(referenced.size).toBeGreaterThanOrEqual(3);
    for (const name of referenced) expect(text, name).toMatch(new RegExp(`^${name}\\{`, 'm'));
  });

  it("answers the dashboard's operator panels and the operator alerts' expressions on a real Prometheus scraping it as Kubernetes would", async () => {
    const namespace = await freshNamespace(kube);
    await createErrata(kube, namespace, 'graphed', sampleSpec());
    const job = await eventually(async () => (await kube.batch.listNamespacedJob({ namespace })).items[0], 'the migration Job');
    await finishJob(kube, namespace, job.metadata!.name!, 'Complete');
    // Discovery in a cluster labels the target with the operator's own namespace; the operator's
    // series carry the namespace of each Errata, which only honor_labels keeps (docs/monitoring.md).
    const prometheus = await startPrometheus({
      targets: { 'errata-operator': [operator.url] },
      jobs: { 'errata-operator': { labels: { namespace: 'errata-system' }, honorLabels: true } },
      rules: RULES_TEXT,
    });
    try {
      const panels = dashboardQueries().filter(({ expr }) => expr.includes('errata_operator_'));
      expect(panels.map((p) => p.panel)).toEqual([
        'Reconcile passes per second',
        'Errata resources Ready',
        'Ready replicas per role',
      ]);
      const alerts = (RULES.groups as Array<{ rules: Array<{ alert?: string; expr: string }> }>)
        .flatMap((g) => g.rules)
        .filter((r) => r.alert && r.expr.includes('errata_operator_'));
      expect(alerts.length).toBeGreaterThanOrEqual(3);
      for (const { panel, expr } of panels) {
        const samples = await eventually(
          async () => {
            const found = await prometheus.query(expr);
            return found.length > 0 ? found : undefined;
          },
          `data for "${panel}": ${expr}\n${prometheus.output()}`,
          60_000,
        );
        if (expr.includes('by (namespace')) expect(samples.map((s) => s.metric.namespace)).toContain(namespace);
      }
      // Each alert's expression without its comparison reads series that exist (the resource
      // above is not Ready, so ErrataOperatorResourceNotReady's own expression matches it too).
      for (const alert of alerts) await prometheus.query(alert.expr); // a query Prometheus refuses throws
      const notReady = await prometheus.query(`errata_operator_resource_ready{namespace="${namespace}"} == 0`);
      expect(notReady.map((s) => s.metric.name)).toEqual(['graphed']);
    } finally {
      await prometheus.stop();
    }
  });
});
