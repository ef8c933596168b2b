// Errata on a real single-node cluster (npm run cluster:up): the chart's operator runs as a pod
// of Errata's image, the sample `Errata` resource (docs/errata-example.yaml, a Secret for every
// credential) becomes a migration Job and three role Deployments whose pods pass their real
// probes, and a real @sentry/node event goes through an ingest pod and a dispatcher pod to
// `/mcp` on an mcp pod. Then what a platform team does on day two: scale, lose a pod, change
// the spec, ship a bad version.
// No kube-proxy runs, so Service addresses do not route: the suite reaches pods by their IPs on
// the bridge, and checks each Service's endpoints instead (the pods a Service would route to).
// The operator pod uses the host's network, since the API server's `kubernetes` Service cannot
// route either: it talks to the API server on loopback with its own ServiceAccount token.
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { containerSpec, execInPod } from '../support/cluster-env.ts';
import { applyCrd, clients, getErrata, patchErrataSpec, testKubeConfig } from '../support/kube-cluster.ts';
import { connectAgent, sendScenario } from '../support/mcp-client.ts';
import { metricTotal } from '../support/metrics.ts';
import { withDatabase } from '../support/postgres-database.ts';
import { eventEnvelope, newEventId } from '../support/raw-http.ts';
import { eventually, REPO_ROOT } from '../support/standalone-server.ts';

const cluster = inject('cluster');
const infra = inject('infraEnv');
const kube = clients(testKubeConfig(cluster));
const run = randomBytes(3).toString('hex');
const namespace = `errata-${run}`;
const operatorNamespace = `errata-system-${run}`;
const NAME = 'errata';
const [IMAGE, VERSION] = cluster.image.split(/:(?=[^:]+$)/) as [string, string];
/** cluster:up tags the same build under a second tag, and a broken image whose migrate fails. */
const SAME_BUILD_TAG = `${VERSION}-again`;
const BROKEN_TAG = 'broken';
const database = withDatabase(() => infra.ERRATA_POSTGRES_URL!);

const COMPONENT = 'app.kubernetes.io/component';
const INSTANCE = 'app.kubernetes.io/instance';

/** Where pods reach a backing server: its loopback address moved to the bridge's gateway. */
const fromPods = (url: string) => url.replace('127.0.0.1', cluster.gateway);

async function pods(component: string): Promise<V1Pod[]> {
  const list = await kube.core.listNamespacedPod({ namespace, labelSelector: `${INSTANCE}=${NAME},${COMPONENT}=${component}` });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp);
}
const isReady = (pod: V1Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The role's pods, once exactly `count` of them are Ready (and no other is left). */
function readyPods(component: string, count: number, timeoutMs = 240_000): Promise<V1Pod[]> {
  return eventually(
    async () => {
      const found = await pods(component);
      return found.length === count && found.every(isReady) ? found : undefined;
    },
    `${count} Ready ${component} pod(s)`,
    timeoutMs,
  );
}
const podUrl = (pod: V1Pod) => `http://${pod.status!.podIP}:8000`;

async function conditions(): Promise<Record<string, { status: string; reason: string; observedGeneration?: number }>> {
  const errata = await getErrata(kube, namespace, NAME);
  return Object.fromEntries((errata.status?.conditions ?? []).map((c: any) => [c.type, c]));
}
async function readyAtGeneration(): Promise<boolean> {
  const errata = await getErrata(kube, namespace, NAME);
  const ready = (errata.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
  return ready?.status === 'True' && errata.status?.observedGeneration === errata.metadata.generation;
}

/** Each role's replica count: the sample's, then as the tests change it. */
const expected: Record<string, number> = {};
let projectId: number;
let projectSlug: string;
let publicKey: string;
let dsnFor: (ingest: V1Pod) => string;
let readToken: string;

/** Sends one event envelope straight to an ingest pod; resolves to the status it answered. */
async function sendEvent(ingest: V1Pod, message: string): Promise<number> {
  const response = await fetch(`${podUrl(ingest)}/api/${projectId}/envelope/?sentry_key=${publicKey}`, {
    method: 'POST',
    body: eventEnvelope({ event_id: newEventId(), message, level: 'error', platform: 'node' }),
  }).catch(() => undefined);
  return response?.status ?? 0;
}

/** Total events of the issues whose title contains `marker`, read through `/mcp` on an mcp pod. */
async function countThroughMcp(marker: string): Promise<number> {
  const [mcp] = await readyPods('mcp', expected.mcp!);
  const agent = await connectAgent(podUrl(mcp!), readToken);
  try {
    const result = await agent.call('list_issues', { project: projectSlug, query: marker, status: 'all', limit: 100 });
    if (result.isError) throw new Error(result.text);
    const facts = result.structured.issues as Array<{ shortId: string; count: number }>;
    const texts = result.structured.untrustedData.issues as Array<{ shortId: string; title: string }>;
    const matching = new Set(texts.filter((t) => t.title.includes(marker)).map((t) => t.shortId));
    return facts.filter((f) => matching.has(f.shortId)).reduce((sum, f) => sum + f.count, 0);
  } finally {
    await agent.close();
  }
}

/**
 * Waits until `count` events of `marker` are listed through /mcp. Polls every 2 s: each poll is
 * a new MCP session (a few messages), and the read token may send 600 messages a minute.
 */
function countedThroughMcp(marker: string, count: number, timeoutMs = 180_000): Promise<true> {
  return eventually(
    async () => {
      if ((await countThroughMcp(marker)) === count) return true;
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      return undefined;
    },
    `${count} event(s) of ${marker} through /mcp`,
    timeoutMs,
  );
}

beforeAll(async () => {
  await applyCrd(kube);
  const postgresUrl = await database.create();

  // The chart's operator, from the image, with the patch the missing kube-proxy needs.
  await kube.core.createNamespace({ body: { metadata: { name: operatorNamespace } } });
  const rendered = execFileSync(
    cluster.helm,
    [
      'template',
      `errata-${run}`,
      join('charts', 'errata'),
      '--namespace',
      operatorNamespace,
      '--set',
      `image.repository=${IMAGE}`,
      '--set',
      `image.tag=${VERSION}`,
      '--set',
      'image.pullPolicy=Never',
    ],
    { cwd: REPO_ROOT, encoding: 'utf8' },
  );
  const apiPort = new URL(cluster.url).port;
  for (const doc of parseAllDocuments(rendered)) {
    const object = doc.toJS();
    if (!object) continue;
    if (object.kind === 'Deployment') {
      const spec = object.spec.template.spec;
      spec.hostNetwork = true;
      spec.dnsPolicy = 'ClusterFirstWithHostNet';
      const env = spec.containers[0].env as Array<{ name: string; value?: string }>;
      env.push({ name: 'KUBERNETES_SERVICE_HOST', value: '127.0.0.1' }, { name: 'KUBERNETES_SERVICE_PORT', value: apiPort });
      // On the host's network the host's port 8000 may be taken: a port of its own.
      env.find((e) => e.name === 'ERRATA_PORT')!.value = '28000';
      spec.containers[0].ports[0].containerPort = 28000;
    }
    await kube.objects.create(object);
  }
  await eventually(
    async () => {
      const list = await kube.core.listNamespacedPod({ namespace: operatorNamespace });
      return list.items.length === 1 && list.items.every(isReady) ? true : undefined;
    },
    'the operator pod Ready',
    180_000,
  );

  // The Errata resource, every credential in a Secret.
  await kube.core.createNamespace({ body: { metadata: { name: namespace } } });
  const secret = (name: string, data: Record<string, string>) =>
    kube.core.createNamespacedSecret({ namespace, body: { metadata: { name }, stringData: data } });
  await secret('errata-postgres', { url: fromPods(postgresUrl) });
  await secret('errata-secrets', { 'secrets-key': randomBytes(32).toString('hex') });
  await secret('errata-s3', {
    'access-key-id': infra.ERRATA_S3_ACCESS_KEY_ID!,
    'secret-access-key': infra.ERRATA_S3_SECRET_ACCESS_KEY!,
  });
  // docs/errata-example.yaml, the sample users copy, with this machine's image and addresses.
  const sample = parseAllDocuments(readFileSync(join(REPO_ROOT, 'docs', 'errata-example.yaml'), 'utf8'))
    .map((d) => d.toJS())
    .find((o) => o?.kind === 'Errata');
  const spec = sample.spec;
  await kube.custom.createNamespacedCustomObject({
    group: 'errata.dev',
    version: 'v1alpha1',
    namespace,
    plural: 'erratas',
    body: {
      apiVersion: 'errata.dev/v1alpha1',
      kind: 'Errata',
      metadata: { name: NAME, namespace },
      spec: {
        ...spec,
        image: IMAGE,
        version: VERSION,
        imagePullPolicy: 'Never',
        kafka: { ...spec.kafka, brokers: [`${cluster.gateway}:19094`], topicPrefix: `cluster-${run}.` },
        clickhouse: { ...spec.clickhouse, url: fromPods(infra.ERRATA_CLICKHOUSE_URL!), database: `errata_cluster_${run}` },
        s3: { ...spec.s3, bucket: `errata-cluster-${run}`, endpoint: fromPods(infra.ERRATA_S3_ENDPOINT!) },
      },
    },
  });
  expected.ingest = spec.ingest.autoscaling.minReplicas;
  expected.mcp = spec.mcp.replicas;
  expected.dispatcher = spec.dispatcher.replicas;
}, 600_000);

afterAll(async () => {
  for (const name of [namespace, operatorNamespace]) await kube.core.deleteNamespace({ name }).catch(() => {});
  // The chart's cluster-wide objects, named after the release.
  await kube.rbac.deleteClusterRoleBinding({ name: `errata-${run}-operator` }).catch(() => {});
  await kube.rbac.deleteClusterRole({ name: `errata-${run}-operator` }).catch(() => {});
  // The pods go first: the database is dropped once nothing holds a connection to it.
  await eventually(
    async () => ((await kube.core.listNamespacedPod({ namespace })).items.length === 0 ? true : undefined),
    'the pods gone',
    180_000,
  ).catch(() => {});
  await database.drop();
}, 300_000);

describe('Errata on a real single-node cluster', () => {
  it('runs the migration Job to completion in a pod, and only then rolls out the three roles, every pod Ready through its probe', async () => {
    await eventually(async () => ((await readyAtGeneration()) ? true : undefined), 'the Errata Ready', 420_000);
    const jobs = (await kube.batch.listNamespacedJob({ namespace, labelSelector: `${INSTANCE}=${NAME},${COMPONENT}=migrate` }))
      .items;
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.status?.succeeded).toBe(1);
    const migrated = new Date(jobs[0]!.status!.completionTime!).getTime();
    for (const role of ['ingest', 'mcp', 'dispatcher']) {
      const deployment = await kube.apps.readNamespacedDeployment({ namespace, name: `${NAME}-${role}` });
      // Created once the migration had succeeded (timestamps have 1 s resolution).
      expect(new Date(deployment.metadata!.creationTimestamp!).getTime()).toBeGreaterThanOrEqual(migrated - 1000);
      const [pod] = await readyPods(role, expected[role]!);
      const container = pod!.spec!.containers[0]!;
      expect(container.image).toBe(`${IMAGE}:${VERSION}`);
      expect(container.readinessProbe?.httpGet?.path).toBe('/healthz');
      expect((await fetch(`${podUrl(pod!)}/healthz`)).status).toBe(200);
    }
    // The sample gives ingest a 1Gi memory limit: Node sizes its heap from it (an old generation
    // of 512 MiB and 4 MiB semi-spaces, 524 MiB), and the operator's NODE_OPTIONS raises the
    // semi-spaces to 16 MiB (560 MiB, operator/desired/node-options.ts). mcp has no limit, so
    // Node sizes it from the node's memory. (The role's growing factor, which it only logs, is
    // checked in the distributed suite: this cluster's API server cannot reach the kubelet's logs.)
    const heapLimitMb = async (role: string) => {
      const [pod] = await readyPods(role, expected[role]!);
      const limit = await metricTotal({ url: podUrl(pod!) }, 'errata_thread_heap_bytes', { thread: 'main', kind: 'limit' });
      return limit / 2 ** 20;
    };
    expect(await heapLimitMb('ingest')).toBe(560);
    expect(await heapLimitMb('mcp')).toBeGreaterThan(560);
  });

  it('takes a @sentry/node event at an ingest pod, processes it in a dispatcher pod, and shows it through /mcp on an mcp pod with a token minted in that pod', async () => {
    const [mcp] = await readyPods('mcp', expected.mcp!);
    const created = await execInPod(cluster, mcp!, [
      'node',
      '/app/bin/errata.js',
      '--json',
      'createproject',
      '--name',
      'Cluster App',
    ]);
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout) as { dsn: string; project: { id: number; slug: string } };
    projectId = project.project.id;
    projectSlug = project.project.slug;
    publicKey = new URL(project.dsn).username;
    dsnFor = (ingest) => {
      const dsn = new URL(project.dsn);
      dsn.host = `${ingest.status!.podIP}:8000`;
      dsn.protocol = 'http:';
      return dsn.toString();
    };
    const token = await execInPod(cluster, mcp!, [
      'node',
      '/app/bin/errata.js',
      '--json',
      'createtoken',
      '--role',
      'read',
      '--name',
      'cluster-test',
    ]);
    expect(token.code, token.stderr).toBe(0);
    readToken = (JSON.parse(token.stdout) as { plaintext: string }).plaintext;

    const [ingest] = await readyPods('ingest', expected.ingest!);
    const marker = `cluster-${run}`;
    const ids = await sendScenario(dsnFor(ingest!), 'checkout-error', marker, `cluster@${VERSION}`);
    expect(ids).toHaveLength(1);
    await countedThroughMcp(marker, 1);
  });

  it("scales ingest from the sample's 2 replicas to 3 (the autoscaler's minimum): a new Ready pod that accepts events too", async () => {
    const before = (await readyPods('ingest', expected.ingest!)).map((p) => p.metadata!.name);
    await patchErrataSpec(kube, namespace, NAME, { ingest: { autoscaling: { minReplicas: 3 } } });
    expected.ingest = 3;
    const ingests = await readyPods('ingest', expected.ingest);
    expect(ingests.filter((p) => !before.includes(p.metadata!.name))).toHaveLength(1);
    const marker = `scaled-${run}`;
    for (const ingest of ingests) expect(await sendEvent(ingest, `${marker} at ${ingest.metadata!.name}`)).toBe(200);
    await countedThroughMcp(marker, ingests.length);
  });

  it('loses no acknowledged event when a dispatcher pod is deleted under load', async () => {
    const ingests = await readyPods('ingest', expected.ingest!);
    const [dispatcher] = await readyPods('dispatcher', expected.dispatcher!);
    const marker = `deleted-${run}`;
    let acknowledged = 0;
    let sent = 0;
    const load = (async () => {
      while (sent < 300) {
        const status = await sendEvent(ingests[sent % ingests.length]!, `${marker} ${sent % 5}`);
        sent++;
        if (status === 200) acknowledged++;
      }
    })();
    await eventually(async () => (sent >= 100 ? true : undefined), '100 events sent', 60_000);
    await kube.core.deleteNamespacedPod({ namespace, name: dispatcher!.metadata!.name! });
    await load;
    expect(acknowledged).toBeGreaterThan(250);
    const dispatchers = await readyPods('dispatcher', expected.dispatcher!);
    expect(dispatchers.map((p) => p.metadata!.name)).not.toContain(dispatcher!.metadata!.name);
    await countedThroughMcp(marker, acknowledged, 240_000);
  });

  it('rolls only the Deployment a spec change touches; status goes Progressing, then Ready with observedGeneration following', async () => {
    const before = Object.fromEntries(
      await Promise.all(
        ['ingest', 'mcp', 'dispatcher'].map(async (r) => [r, (await pods(r)).map((p) => p.metadata!.name).sort()]),
      ),
    );
    const generation = (await getErrata(kube, namespace, NAME)).metadata.generation as number;
    await patchErrataSpec(kube, namespace, NAME, { dispatcher: { env: [{ name: 'ERRATA_LOG_LEVEL', value: 'debug' }] } });
    const seen = new Set<string>();
    await eventually(
      async () => {
        const errata = await getErrata(kube, namespace, NAME);
        const progressing = (errata.status?.conditions ?? []).find((c: any) => c.type === 'Progressing');
        if (errata.status?.observedGeneration > generation && progressing?.status === 'True') seen.add('Progressing');
        if (seen.has('Progressing') && (await readyAtGeneration())) return true;
        return undefined;
      },
      'Progressing, then Ready at the new generation',
      240_000,
    );
    for (const dispatcher of await readyPods('dispatcher', expected.dispatcher!)) {
      expect(dispatcher.spec!.containers[0]!.env).toContainEqual({ name: 'ERRATA_LOG_LEVEL', value: 'debug' });
      expect(before.dispatcher).not.toContain(dispatcher.metadata!.name);
    }
    expect((await pods('ingest')).map((p) => p.metadata!.name).sort()).toEqual(before.ingest);
    expect((await pods('mcp')).map((p) => p.metadata!.name).sort()).toEqual(before.mcp);
    const status = (await getErrata(kube, namespace, NAME)).status;
    expect(status.observedGeneration).toBe(generation + 1);
  });

  it('moves every role to a new tag of the same build, after its migration', async () => {
    await patchErrataSpec(kube, namespace, NAME, { version: SAME_BUILD_TAG });
    await eventually(
      async () => {
        if (!(await readyAtGeneration())) return undefined;
        for (const role of ['ingest', 'mcp', 'dispatcher']) {
          const found = await pods(role);
          if (!found.every((p) => p.spec!.containers[0]!.image === `${IMAGE}:${SAME_BUILD_TAG}` && isReady(p))) return undefined;
        }
        return true;
      },
      `every role on ${SAME_BUILD_TAG}`,
      300_000,
    );
    expect((await getErrata(kube, namespace, NAME)).status.migratedVersion).toBe(SAME_BUILD_TAG);
  });

  it('holds the roll at a failed migration when a version is bad, while the old pods keep serving', async () => {
    await patchErrataSpec(kube, namespace, NAME, { version: BROKEN_TAG });
    await eventually(
      async () => {
        const found = await conditions();
        return found.MigrationsComplete?.reason === 'MigrationFailed' && found.Degraded?.status === 'True' ? true : undefined;
      },
      'the Errata to report the failed migration',
      300_000,
    );
    for (const role of ['ingest', 'mcp', 'dispatcher']) {
      const found = await readyPods(role, expected[role]!);
      for (const pod of found) expect(pod.spec!.containers[0]!.image).toBe(`${IMAGE}:${SAME_BUILD_TAG}`);
    }
    const [ingest] = await readyPods('ingest', expected.ingest!);
    const marker = `held-${run}`;
    expect(await sendEvent(ingest!, marker)).toBe(200);
    await countedThroughMcp(marker, 1);
    await patchErrataSpec(kube, namespace, NAME, { version: SAME_BUILD_TAG });
  });

  it("routes each Service to its role's Ready pods (its endpoints; no kube-proxy here to route the address itself)", async () => {
    for (const role of ['ingest', 'mcp']) {
      const service = await kube.core.readNamespacedService({ namespace, name: `${NAME}-${role}` });
      expect(service.spec!.selector).toMatchObject({ [COMPONENT]: role });
      const expected = (await pods(role))
        .filter(isReady)
        .map((p) => p.status!.podIP)
        .sort();
      await eventually(
        async () => {
          const slices = await kube.discovery.listNamespacedEndpointSlice({
            namespace,
            labelSelector: `kubernetes.io/service-name=${NAME}-${role}`,
          });
          const addresses = slices.items
            .flatMap((s) => s.endpoints)
            .filter((e) => e.conditions?.ready)
            .flatMap((e) => e.addresses)
            .sort();
          return JSON.stringify(addresses) === JSON.stringify(expected) ? true : undefined;
        },
        `${role}'s Service endpoints to be its Ready pods`,
        60_000,
      );
    }
  });

  it('runs every container as non-root, on a read-only root filesystem with only /tmp writable', async () => {
    const all = (await kube.core.listNamespacedPod({ namespace })).items.filter((p) => p.status?.phase === 'Running');
    const operator = (await kube.core.listNamespacedPod({ namespace: operatorNamespace })).items;
    expect(all.length).toBeGreaterThanOrEqual(4);
    for (const pod of [...all, ...operator]) {
      const spec = await containerSpec(cluster, pod);
      expect(spec.process.user.uid, pod.metadata!.name).toBe(1000);
      expect(spec.root.readonly, pod.metadata!.name).toBe(true);
    }
    const [ingest] = await readyPods('ingest', expected.ingest!);
    const write = (path: string) =>
      execInPod(cluster, ingest!, ['node', '-e', `require('fs').writeFileSync(${JSON.stringify(path)}, 'x')`]);
    const app = await write('/app/written');
    expect(app.code).not.toBe(0);
    expect(app.stderr).toContain('EROFS');
    expect((await write('/tmp/written')).code).toBe(0);
    const id = await execInPod(cluster, ingest!, ['node', '-e', 'console.log(process.getuid())']);
    expect(id.stdout.trim()).toBe('1000');
  });
});
