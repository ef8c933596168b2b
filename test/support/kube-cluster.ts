// The real kube-apiserver of the operator suite (test/operator/global-setup.ts): a kubeconfig
// for it, a namespace per test, the CRD applied, and helpers to play the controllers that do not
// run there (setting Deployment and Job status through their status subresources).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import {
  ApiextensionsV1Api,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  DiscoveryV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
  setHeaderOptions,
} from '@kubernetes/client-node';
import { parse } from 'yaml';
import { inject } from 'vitest';
import { CRD_FILE } from '../../operator/api/crd-file.ts';
import { GROUP, PLURAL, VERSION } from '../../operator/api/errata-resource.ts';
import { startOperator } from '../../operator/operator.ts';
import { loadConfig } from '../../services/runtime/config.ts';
import { createLogger, type Logger } from '../../services/runtime/logger.ts';

/** A kubeconfig for the test API server: the suite's (provided by its global setup), or the one given. */
export function testKubeConfig(target: { url: string; token: string } = inject('kube')): KubeConfig {
  const { url, token } = target;
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'test', server: url, skipTLSVerify: true }],
    users: [{ name: 'test', token }],
    contexts: [{ name: 'test', cluster: 'test', user: 'test' }],
    currentContext: 'test',
  });
  return config;
}

export function clients(config = testKubeConfig()) {
  return {
    config,
    core: config.makeApiClient(CoreV1Api),
    apps: config.makeApiClient(AppsV1Api),
    batch: config.makeApiClient(BatchV1Api),
    custom: config.makeApiClient(CustomObjectsApi),
    discovery: config.makeApiClient(DiscoveryV1Api),
    rbac: config.makeApiClient(RbacAuthorizationV1Api),
    extensions: config.makeApiClient(ApiextensionsV1Api),
    objects: KubernetesObjectApi.makeApiClient(config),
  };
}

/**
 * Server-side apply of a raw object, byte for byte. The client's typed serializer knows schema
 * fields only by its own attribute names and silently drops `x-kubernetes-validations` and
 * `default` from a CRD given as YAML, so the CRD goes over plain HTTPS instead.
 */
export async function rawApply(config: KubeConfig, path: string, body: unknown, dryRun = false): Promise<void> {
  const url = new URL(`${config.getCurrentCluster()!.server}${path}`);
  url.searchParams.set('fieldManager', 'errata-tests');
  url.searchParams.set('force', 'true');
  if (dryRun) url.searchParams.set('dryRun', 'All');
  const options: https.RequestOptions = { method: 'PATCH', headers: { 'content-type': PatchStrategy.ServerSideApply } };
  await config.applyToHTTPSOptions(options);
  await new Promise<void>((resolve, reject) => {
    const request = https.request(url, options, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () =>
        response.statusCode! < 300 ? resolve() : reject(new Error(`PATCH ${path}: ${response.statusCode} ${text}`)),
      );
    });
    request.on('error', reject);
    request.end(JSON.stringify(body));
  });
}

/** A GET as kubectl makes it for `kubectl get`: the server's table of printer columns. */
export async function getTable(config: KubeConfig, path: string): Promise<{ columns: string[]; rows: unknown[][] }> {
  const options: https.RequestOptions = { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } };
  await config.applyToHTTPSOptions(options);
  const text = await new Promise<string>((resolve, reject) => {
    https
      .get(new URL(`${config.getCurrentCluster()!.server}${path}`), options, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve(body));
      })
      .on('error', reject);
  });
  const table = JSON.parse(text) as { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> };
  return { columns: table.columnDefinitions.map((c) => c.name), rows: table.rows.map((r) => r.cells) };
}

/** Applies the committed CRD (server-side) and waits until it is established. */
export async function applyCrd(kube = clients()): Promise<void> {
  const crd = parse(readFileSync(CRD_FILE, 'utf8'));
  await rawApply(kube.config, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`, crd);
  for (let i = 0; i < 100; i++) {
    const current = await kube.extensions.readCustomResourceDefinition({ name: crd.metadata.name });
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the Errata CRD did not become established');
}

/**
 * Runs `write` under the Errata CRD as it was before its env lists were keyed by name (a
 * variable named twice passed), then applies the committed CRD again: an object stored under an
 * older CRD is what the operator's own check of a spec is for. `write` is retried until the API
 * server validates with the older CRD (422 until then).
 */
export async function underCrdAcceptingRepeatedEnv(kube: ReturnType<typeof clients>, write: () => Promise<void>): Promise<void> {
  const crd = parse(readFileSync(CRD_FILE, 'utf8'));
  const current = await kube.extensions.readCustomResourceDefinition({ name: crd.metadata.name });
  for (const version of current.spec.versions) {
    const roles = version.schema!.openAPIV3Schema!.properties!.spec!.properties!;
    for (const role of ['ingest', 'mcp', 'dispatcher']) {
      const env = roles[role]!.properties!.env!;
      delete env.x_kubernetes_list_type;
      delete env.x_kubernetes_list_map_keys;
    }
  }
  await kube.extensions.replaceCustomResourceDefinition({ name: crd.metadata.name, body: current });
  try {
    for (let tries = 0; ; tries++) {
      try {
        return await write();
      } catch (error) {
        if ((error as { code?: number }).code !== 422 || tries >= 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await applyCrd(kube);
  }
}

/**
 * One of the Prometheus Operator's CRDs, reduced to its names (spec kept as given): enough for
 * the API server to serve the kind, which is all the operator's check for it, and the chart's
 * objects of it, need.
 */
async function applyPrometheusOperatorCrd(kube: ReturnType<typeof clients>, kind: 'PrometheusRule' | 'ServiceMonitor') {
  const singular = kind.toLowerCase();
  const name = `${singular}s.monitoring.coreos.com`;
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: {
      group: 'monitoring.coreos.com',
      scope: 'Namespaced',
      names: { plural: `${singular}s`, singular, kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
  await rawApply(kube.config, `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`, crd);
  for (let i = 0; i < 100; i++) {
    const current = await kube.extensions.readCustomResourceDefinition({ name });
    if (current.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the ${kind} CRD did not become established`);
}

export const applyPrometheusRuleCrd = (kube = clients()) => applyPrometheusOperatorCrd(kube, 'PrometheusRule');
export const applyServiceMonitorCrd = (kube = clients()) => applyPrometheusOperatorCrd(kube, 'ServiceMonitor');

/** A valid spec whose dependencies need not exist (no pod runs on the test API server). */
export const sampleSpec = (version = '0.1.0') => ({
  image: 'registry.example.com/errata',
  version,
  kafka: { brokers: ['kafka:9092'] },
  clickhouse: { url: 'http://clickhouse:8123' },
  postgres: { url: { name: 'pg', key: 'url' } },
  s3: { bucket: 'maps' },
  secretsKey: { name: 'errata', key: 'secrets-key' },
  ingress: { host: 'errata.example.com' },
});

export async function freshNamespace(kube = clients()): Promise<string> {
  const name = `t-${randomBytes(4).toString('hex')}`;
  await kube.core.createNamespace({ body: { metadata: { name } } });
  return name;
}

export async function createErrata(kube: ReturnType<typeof clients>, namespace: string, name: string, spec: unknown) {
  return kube.custom.createNamespacedCustomObject({
    group: GROUP,
    version: VERSION,
    namespace,
    plural: PLURAL,
    body: { apiVersion: `${GROUP}/${VERSION}`, kind: 'Errata', metadata: { name, namespace }, spec },
  });
}

export async function getErrata(kube: ReturnType<typeof clients>, namespace: string, name: string): Promise<any> {
  return kube.custom.getNamespacedCustomObject({ group: GROUP, version: VERSION, namespace, plural: PLURAL, name });
}

export async function patchErrataSpec(kube: ReturnType<typeof clients>, namespace: string, name: string, spec: unknown) {
  return kube.custom.patchNamespacedCustomObject(
    { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { spec } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** Plays the Job controller: marks a Job complete, or failed. */
export async function finishJob(
  kube: ReturnType<typeof clients>,
  namespace: string,
  name: string,
  outcome: 'Complete' | 'Failed',
) {
  const now = new Date();
  const conditions =
    outcome === 'Complete'
      ? [
          { type: 'SuccessCriteriaMet', status: 'True', lastProbeTime: now, lastTransitionTime: now },
          { type: 'Complete', status: 'True', lastProbeTime: now, lastTransitionTime: now },
        ]
      : [
          {
            type: 'FailureTarget',
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
          {
            type: 'Failed',
            status: 'True',
            reason: 'BackoffLimitExceeded',
            message: 'Job has reached the specified backoff limit',
            lastProbeTime: now,
            lastTransitionTime: now,
          },
        ];
  const status =
    outcome === 'Complete'
      ? { startTime: now, completionTime: now, succeeded: 1, conditions }
      : { startTime: now, failed: 3, conditions };
  await kube.batch.patchNamespacedJobStatus(
    { name, namespace, body: { status } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/** Plays the Deployment controller: sets its replica counts. */
export async function setDeploymentStatus(
  kube: ReturnType<typeof clients>,
  namespace: string,
  name: string,
  counts: { replicas: number; ready: number; updated: number },
) {
  const current = await kube.apps.readNamespacedDeployment({ name, namespace });
  await kube.apps.patchNamespacedDeploymentStatus(
    {
      name,
      namespace,
      body: {
        status: {
          observedGeneration: current.metadata!.generation,
          replicas: counts.replicas,
          readyReplicas: counts.ready,
          availableReplicas: counts.ready,
          updatedReplicas: counts.updated,
        },
      },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
}

/**
 * The operator as the suites run it: in this process, on a free loopback port, with a 3 s lease
 * and 250 ms retries so leadership changes and retries happen within a test. The caller waits
 * for leadership when it needs it.
 */
export function startTestOperator(options: {
  leaseNamespace: string;
  kubeConfig?: KubeConfig;
  logger?: Logger;
  resyncMs?: number;
}): ReturnType<typeof startOperator> {
  return startOperator({
    kubeConfig: options.kubeConfig ?? testKubeConfig(),
    logger: options.logger ?? createLogger('silent'),
    leaseNamespace: options.leaseNamespace,
    host: '127.0.0.1',
    port: 0,
    http: loadConfig({}).http,
    leaseSeconds: 3,
    retryMs: 250,
    ...(options.resyncMs === undefined ? {} : { resyncMs: options.resyncMs }),
  });
}
