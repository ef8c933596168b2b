// The operator against a real kube-apiserver (etcd behind it): the CRD applied, Errata resources
// created, changed, broken and deleted, and the owned objects, status and leadership checked.
// No controllers run there, so the tests play them: they finish migration Jobs and set
// Deployment status through the status subresources.
import { PatchStrategy, setHeaderOptions, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { startOperator } from '../../operator/operator.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { eventually } from '../support/standalone-server.ts';
import {
  applyCrd,
  clients,
  createErrata,
  finishJob,
  freshNamespace,
  getErrata,
  getTable,
  patchErrataSpec,
  underCrdAcceptingRepeatedEnv,
  sampleSpec,
  startTestOperator,
  setDeploymentStatus,
} from '../support/kube-cluster.ts';

const kube = clients();
const logger = createLogger('silent');
let operator: Awaited<ReturnType<typeof startOperator>>;
let leaseNamespace: string;

const spec = (version = '0.1.0') => ({ ...sampleSpec(version), dispatcher: { replicas: 2 } });

beforeAll(async () => {
  await applyCrd(kube);
  leaseNamespace = await freshNamespace(kube);
  operator = await startTestOperator({ kubeConfig: kube.config, logger, leaseNamespace, resyncMs: 2_000 });
  await eventually(async () => (operator.isLeader() ? true : undefined), 'the operator to lead');
}, 120_000);
afterAll(async () => {
  await operator?.stop();
});

async function jobName(namespace: string, version: string): Promise<string> {
  return eventually(async () => {
    const jobs = await kube.batch.listNamespacedJob({ namespace });
    return jobs.items.find((j) => j.spec!.template.spec!.containers[0]!.image!.endsWith(`:${version}`))?.metadata!.name;
  }, `the migration Job for ${version}`);
}

async function owned(namespace: string) {
  const names = async (list: Promise<{ items: Array<{ metadata?: { name?: string } }> }>) =>
    (await list).items.map((i) => i.metadata!.name!).sort();
  return {
    deployments: await names(kube.apps.listNamespacedDeployment({ namespace })),
    services: await names(kube.core.listNamespacedService({ namespace })),
    configMaps: (await names(kube.core.listNamespacedConfigMap({ namespace }))).filter((n) => n !== 'kube-root-ca.crt'),
  };
}

/** A running Errata: its migration finished and its Deployments created. */
async function running(name: string): Promise<string> {
  const namespace = await freshNamespace(kube);
  await createErrata(kube, namespace, name, spec());
  await finishJob(kube, namespace, await jobName(namespace, '0.1.0'), 'Complete');
  await eventually(async () => ((await owned(namespace)).deployments.length === 3 ? true : undefined), 'the Deployments');
  return namespace;
}

const condition = (errata: any, type: string) => errata.status?.conditions?.find((c: any) => c.type === type);

describe('the operator', () => {
  it('migrates first, then creates every owned object with an owner reference, and reports it', async () => {
    const namespace = await freshNamespace(kube);
    await createErrata(kube, namespace, 'shop', spec());
    const job = await jobName(namespace, '0.1.0');
    // Nothing runs before the schema is migrated.
    const migrating = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'shop');
      return condition(errata, 'MigrationsComplete') ? errata : undefined;
    }, 'a first status');
    expect(condition(migrating, 'MigrationsComplete')).toMatchObject({ status: 'False', reason: 'MigrationRunning' });
    expect((await owned(namespace)).deployments).toEqual([]);

    await finishJob(kube, namespace, job, 'Complete');
    const objects = await eventually(async () => {
      const found = await owned(namespace);
      return found.deployments.length === 3 ? found : undefined;
    }, 'the Deployments');
    expect(objects).toEqual({
      deployments: ['shop-dispatcher', 'shop-ingest', 'shop-mcp'],
      services: ['shop-dispatcher', 'shop-ingest', 'shop-mcp'],
      configMaps: ['shop-config'],
    });
    const errata = await getErrata(kube, namespace, 'shop');
    const uid = errata.metadata.uid;
    for (const deployment of (await kube.apps.listNamespacedDeployment({ namespace })).items) {
      expect(deployment.metadata!.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Errata', name: 'shop', uid, controller: true }),
      ]);
      expect(deployment.spec!.template.spec!.containers[0]!.image).toBe('registry.example.com/errata:0.1.0');
    }
    const ingress = await kube.objects.read({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'shop', namespace },
    });
    expect(ingress.metadata!.ownerReferences![0]!.uid).toBe(uid);
    const budgets = await kube.objects.list('policy/v1', 'PodDisruptionBudget', namespace);
    expect(budgets.items.map((b) => b.metadata!.name).sort()).toEqual(['shop-dispatcher', 'shop-ingest', 'shop-mcp']);
    const reported = await eventually(async () => {
      const current = await getErrata(kube, namespace, 'shop');
      return condition(current, 'MigrationsComplete')?.status === 'True' ? current : undefined;
    }, 'MigrationsComplete');
    expect(reported.status).toMatchObject({
      observedGeneration: reported.metadata.generation,
      migratedVersion: '0.1.0',
      urls: { ingest: 'http://errata.example.com', mcp: 'http://errata.example.com' },
    });
    expect(condition(reported, 'Ready')).toMatchObject({ status: 'False', reason: 'RolesNotReady' });
    // What `kubectl get erratas` prints.
    const table = await getTable(kube.config, `/apis/errata.dev/v1alpha1/namespaces/${namespace}/erratas`);
    expect(table.columns).toEqual(['Name', 'Ready', 'Reason', 'Version', 'Ingest', 'MCP', 'Age']);
    expect(table.rows[0]!.slice(0, 3)).toEqual(['shop', 'False', 'RolesNotReady']);
  });

  it('is Ready once every role is, and says which is not', async () => {
    const namespace = await running('ready');
    for (const role of ['ingest', 'mcp'])
      await setDeploymentStatus(kube, namespace, `ready-${role}`, { replicas: 1, ready: 1, updated: 1 });
    await setDeploymentStatus(kube, namespace, 'ready-dispatcher', { replicas: 2, ready: 2, updated: 2 });
    const ready = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'ready');
      return condition(errata, 'Ready')?.status === 'True' ? errata : undefined;
    }, 'Ready');
    expect(condition(ready, 'Progressing')).toMatchObject({ status: 'False', reason: 'Stable' });
    expect(ready.status.replicas).toEqual({
      ingest: { desired: 1, ready: 1 },
      mcp: { desired: 1, ready: 1 },
      dispatcher: { desired: 2, ready: 2 },
    });
    expect(ready.status.version).toBe('0.1.0');

    await setDeploymentStatus(kube, namespace, 'ready-dispatcher', { replicas: 2, ready: 1, updated: 2 });
    const notReady = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'ready');
      return condition(errata, 'Ready')?.status === 'False' ? errata : undefined;
    }, 'not Ready');
    expect(condition(notReady, 'Ready').message).toBe('not ready: ingest 1/1, mcp 1/1, dispatcher 1/2');
  });

  it('changes only what a spec change affects, and follows the generation', async () => {
    const namespace = await running('change');
    const versions = async () =>
      Object.fromEntries(
        (await kube.apps.listNamespacedDeployment({ namespace })).items.map((d) => [
          d.metadata!.name,
          d.metadata!.resourceVersion,
        ]),
      );
    // Let the first passes settle before taking the picture.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const before = await versions();
    await patchErrataSpec(kube, namespace, 'change', { dispatcher: { replicas: 4 } });
    const dispatcher = await eventually(async () => {
      const d = await kube.apps.readNamespacedDeployment({ name: 'change-dispatcher', namespace });
      return d.spec!.replicas === 4 ? d : undefined;
    }, 'the dispatcher scaled');
    const after = await versions();
    expect(after['change-ingest']).toBe(before['change-ingest']);
    expect(after['change-mcp']).toBe(before['change-mcp']);
    expect(after['change-dispatcher']).toBe(dispatcher.metadata!.resourceVersion);
    expect(after['change-dispatcher']).not.toBe(before['change-dispatcher']);
    await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'change');
      return errata.status?.observedGeneration === errata.metadata.generation && errata.metadata.generation > 1
        ? true
        : undefined;
    }, 'observedGeneration to follow');

    // Autoscaling switched on: the count the Deployment has stays until the autoscaler moves it.
    await patchErrataSpec(kube, namespace, 'change', {
      dispatcher: { autoscaling: { minReplicas: 2, maxReplicas: 6 }, resources: { requests: { cpu: '250m' } } },
    });
    await eventually(async () => {
      const hpas = await kube.objects.list('autoscaling/v2', 'HorizontalPodAutoscaler', namespace);
      return hpas.items.some((h) => h.metadata!.name === 'change-dispatcher') ? true : undefined;
    }, 'the dispatcher autoscaler');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await kube.apps.readNamespacedDeployment({ name: 'change-dispatcher', namespace })).spec!.replicas).toBe(4);

    // Switched off: the ingress and the budgets go.
    await patchErrataSpec(kube, namespace, 'change', { ingress: null, podDisruptionBudgets: { enabled: false } });
    await eventually(async () => {
      const ingresses = await kube.objects.list('networking.k8s.io/v1', 'Ingress', namespace);
      const budgets = await kube.objects.list('policy/v1', 'PodDisruptionBudget', namespace);
      return ingresses.items.length === 0 && budgets.items.length === 0 ? true : undefined;
    }, 'the ingress and budgets pruned');
  });

  it('keeps the old version serving when a migration fails, and says so', async () => {
    const namespace = await running('upgrade');
    await patchErrataSpec(kube, namespace, 'upgrade', { version: '0.2.0' });
    await finishJob(kube, namespace, await jobName(namespace, '0.2.0'), 'Failed');
    const degraded = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'upgrade');
      return condition(errata, 'Degraded')?.status === 'True' ? errata : undefined;
    }, 'Degraded');
    expect(condition(degraded, 'Degraded')).toMatchObject({ reason: 'MigrationFailed' });
    expect(condition(degraded, 'MigrationsComplete')).toMatchObject({ status: 'False', reason: 'MigrationFailed' });
    expect(condition(degraded, 'Degraded').message).toMatch(
      /errata migrate for 0\.2\.0 failed: Job has reached the specified backoff limit/,
    );
    for (const deployment of (await kube.apps.listNamespacedDeployment({ namespace })).items) {
      expect(deployment.spec!.template.spec!.containers[0]!.image).toBe('registry.example.com/errata:0.1.0');
    }
  });

  it('migrates again when the settings change, and the roles keep theirs until it succeeds', async () => {
    const namespace = await running('move');
    const first = await jobName(namespace, '0.1.0');
    const config = async () => (await kube.core.readNamespacedConfigMap({ name: 'move-config', namespace })).data!;
    const ingestEnv = async () =>
      (await kube.apps.readNamespacedDeployment({ name: 'move-ingest', namespace })).spec!.template.spec!.containers[0]!.env!;
    expect((await config()).ERRATA_CLICKHOUSE_DATABASE).toBe('errata');
    const pg = { name: 'ERRATA_POSTGRES_URL', valueFrom: { secretKeyRef: { name: 'pg', key: 'url' } } };
    expect(await ingestEnv()).toContainEqual(pg);

    // A new, empty database: the version is the same, the schema is not there.
    await patchErrataSpec(kube, namespace, 'move', {
      clickhouse: { database: 'errata_new' },
      postgres: { url: { name: 'pg-new', key: 'url' } },
    });
    const second = await eventually(async () => {
      const jobs = await kube.batch.listNamespacedJob({ namespace });
      return jobs.items.map((j) => j.metadata!.name!).find((n) => n !== first);
    }, 'a migration Job for the new settings');
    const job = await kube.batch.readNamespacedJob({ name: second, namespace });
    const jobEnv = job.spec!.template.spec!.containers[0]!.env!;
    expect(jobEnv).toContainEqual({ name: 'ERRATA_CLICKHOUSE_DATABASE', value: 'errata_new' });
    expect(jobEnv).toContainEqual({ ...pg, valueFrom: { secretKeyRef: { name: 'pg-new', key: 'url' } } });
    const migrating = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'move');
      return errata.status?.observedGeneration === errata.metadata.generation ? errata : undefined;
    }, 'the status of the new generation');
    expect(condition(migrating, 'MigrationsComplete')).toMatchObject({ status: 'False', reason: 'MigrationRunning' });
    expect(condition(migrating, 'Ready')).toMatchObject({ status: 'False' });
    // Until it succeeds, the pods' settings stay as they were (a pass every 2 s has had its turn).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await config()).ERRATA_CLICKHOUSE_DATABASE).toBe('errata');
    expect(await ingestEnv()).toContainEqual(pg);

    await finishJob(kube, namespace, second, 'Complete');
    await eventually(
      async () => ((await config()).ERRATA_CLICKHOUSE_DATABASE === 'errata_new' ? true : undefined),
      'the new settings',
    );
    await eventually(
      async () => ((await ingestEnv()).some((v) => v.valueFrom?.secretKeyRef?.name === 'pg-new') ? true : undefined),
      'the roles on the new database',
    );
    expect((await getErrata(kube, namespace, 'move')).status.migratedJob).toBe(second);
  });

  it('knows a migration done from the ConfigMap when its Job and status.migratedJob are gone', async () => {
    // A CRD left at an older version prunes status.migratedJob, and a Job goes 7 days after it
    // finished: before, a spec change then ran the migration again and held the roles meanwhile.
    const namespace = await running('kept');
    const job = await jobName(namespace, '0.1.0');
    await eventually(
      async () => ((await getErrata(kube, namespace, 'kept')).status?.migratedJob === job ? true : undefined),
      'migratedJob',
    );
    await kube.batch.deleteNamespacedJob({ name: job, namespace, propagationPolicy: 'Background' });
    await kube.custom.patchNamespacedCustomObjectStatus(
      {
        group: 'errata.dev',
        version: 'v1alpha1',
        namespace,
        plural: 'erratas',
        name: 'kept',
        body: { status: { migratedJob: null } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await patchErrataSpec(kube, namespace, 'kept', { dispatcher: { replicas: 3 } });
    await eventually(async () => {
      const d = await kube.apps.readNamespacedDeployment({ name: 'kept-dispatcher', namespace });
      return d.spec!.replicas === 3 ? true : undefined;
    }, 'the dispatcher scaled');
    expect((await kube.batch.listNamespacedJob({ namespace })).items.filter((j) => !j.metadata!.deletionTimestamp)).toEqual([]);
  });

  it('is not Ready at a new generation before its change is rolled out', async () => {
    const namespace = await running('gen');
    for (const role of ['ingest', 'mcp'])
      await setDeploymentStatus(kube, namespace, `gen-${role}`, { replicas: 1, ready: 1, updated: 1 });
    await setDeploymentStatus(kube, namespace, 'gen-dispatcher', { replicas: 2, ready: 2, updated: 2 });
    const ready = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'gen');
      return condition(errata, 'Ready')?.status === 'True' ? errata : undefined;
    }, 'Ready');
    // Every status written from here on, as a GitOps tool watching it would see them.
    const seen: any[] = [];
    const watching = await new Watch(kube.config).watch(
      `/apis/errata.dev/v1alpha1/namespaces/${namespace}/erratas`,
      { resourceVersion: ready.metadata.resourceVersion },
      (_type: string, object: any) => seen.push(object),
      () => undefined,
    );
    try {
      await patchErrataSpec(kube, namespace, 'gen', { dispatcher: { replicas: 3 } });
      await eventually(async () => {
        const d = await kube.apps.readNamespacedDeployment({ name: 'gen-dispatcher', namespace });
        return d.spec!.replicas === 3 ? true : undefined;
      }, 'the dispatcher scaled');
      const generation = ready.metadata.generation + 1;
      await eventually(
        async () => (seen.some((e) => e.status?.observedGeneration === generation) ? true : undefined),
        'a status',
      );
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const atNewGeneration = seen.filter((e) => e.status?.observedGeneration === generation);
      expect(atNewGeneration.map((e) => condition(e, 'Ready')?.status)).not.toContain('True');
      expect(condition(atNewGeneration[0], 'Progressing')).toMatchObject({ status: 'True', reason: 'RollingOut' });
    } finally {
      watching.abort();
    }
  });

  it('is neither Ready nor Progressing at a generation whose spec it refuses, and says why', async () => {
    const namespace = await running('invalid');
    for (const role of ['ingest', 'mcp'])
      await setDeploymentStatus(kube, namespace, `invalid-${role}`, { replicas: 1, ready: 1, updated: 1 });
    await setDeploymentStatus(kube, namespace, 'invalid-dispatcher', { replicas: 2, ready: 2, updated: 2 });
    await eventually(
      async () => (condition(await getErrata(kube, namespace, 'invalid'), 'Ready')?.status === 'True' ? true : undefined),
      'Ready',
    );
    // A variable named twice, which the CRD refuses now; an older CRD let it through, and the
    // operator refuses it itself.
    const twice = [
      { name: 'ERRATA_LOG_LEVEL', value: 'debug' },
      { name: 'ERRATA_LOG_LEVEL', value: 'info' },
    ];
    await underCrdAcceptingRepeatedEnv(kube, () => patchErrataSpec(kube, namespace, 'invalid', { ingest: { env: twice } }));
    const refused = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'invalid');
      return condition(errata, 'Degraded')?.reason === 'InvalidSpec' ? errata : undefined;
    }, 'Degraded InvalidSpec');
    const generation = refused.metadata.generation;
    expect(refused.status.observedGeneration).toBe(generation);
    expect(condition(refused, 'Degraded').message).toBe(
      'spec.ingest.env: ERRATA_LOG_LEVEL is named twice: give each variable once',
    );
    for (const type of ['Ready', 'Progressing']) {
      expect(condition(refused, type)).toMatchObject({ status: 'False', reason: 'InvalidSpec', observedGeneration: generation });
    }
  });

  it("reports the API server's refusal in the same words on every pass, and clears it once the cause is gone", async () => {
    const namespace = await freshNamespace(kube);
    const quota = await kube.core.createNamespacedResourceQuota({
      namespace,
      body: { metadata: { name: 'no-jobs' }, spec: { hard: { 'count/jobs.batch': '0' } } },
    });
    // What the quota controller (not running here) would write: none used of none allowed.
    await kube.core.replaceNamespacedResourceQuotaStatus({
      namespace,
      name: 'no-jobs',
      body: { ...quota, status: { hard: { 'count/jobs.batch': '0' }, used: { 'count/jobs.batch': '0' } } },
    });
    await createErrata(kube, namespace, 'quota', spec());
    const refused = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'quota');
      return condition(errata, 'Degraded')?.reason === 'ApplyFailed' ? errata : undefined;
    }, 'Degraded ApplyFailed');
    const message = condition(refused, 'Degraded').message;
    expect(message).toMatch(/^HTTP 403: jobs\.batch "quota-migrate-[0-9a-z]+" is forbidden/);
    expect(message).not.toMatch(/Headers|audit-id/);
    // Passes go on (a failed one is retried with backoff, and the resync is 2 s), and the status
    // is not written again: each write of a changed message started the next pass at once.
    const before = (await getErrata(kube, namespace, 'quota')).metadata.resourceVersion;
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const after = await getErrata(kube, namespace, 'quota');
    expect(after.metadata.resourceVersion).toBe(before);
    expect(condition(after, 'Degraded').message).toBe(message);
    await kube.core.deleteNamespacedResourceQuota({ namespace, name: 'no-jobs' });
    await jobName(namespace, '0.1.0');
    await eventually(
      async () => (condition(await getErrata(kube, namespace, 'quota'), 'Degraded')?.status === 'False' ? true : undefined),
      'Degraded cleared',
    );
  });

  it("leaves an object of a name it would use alone when it is not this Errata's, and says so", async () => {
    const namespace = await freshNamespace(kube);
    await kube.core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'taken-config' }, data: { owner: 'another app' } },
    });
    await createErrata(kube, namespace, 'taken', spec());
    // The ConfigMap is applied with the Deployments, once the schema is migrated.
    await finishJob(kube, namespace, await jobName(namespace, '0.1.0'), 'Complete');
    const refused = await eventually(async () => {
      const errata = await getErrata(kube, namespace, 'taken');
      return condition(errata, 'Degraded')?.reason === 'ApplyFailed' ? errata : undefined;
    }, 'Degraded ApplyFailed');
    expect(condition(refused, 'Degraded').message).toContain("ConfigMap taken-config exists and is not this Errata's");
    const configMap = await kube.core.readNamespacedConfigMap({ namespace, name: 'taken-config' });
    expect(configMap.data).toEqual({ owner: 'another app' });
    expect(configMap.metadata!.ownerReferences).toBeUndefined();
  });

  it('reverts a hand edit of what it owns within a resync period', async () => {
    const namespace = await running('drift');
    const name = 'drift-dispatcher';
    // What `kubectl scale` and `kubectl set image` send.
    await kube.apps.replaceNamespacedDeploymentScale({
      name,
      namespace,
      body: { metadata: { name, namespace }, spec: { replicas: 7 } },
    });
    const edited = await kube.apps.readNamespacedDeployment({ name, namespace });
    edited.spec!.template.spec!.containers[0]!.image = 'registry.example.com/errata:hand-made';
    await kube.apps.replaceNamespacedDeployment({ name, namespace, body: edited, fieldManager: 'kubectl-set' });
    await kube.core.patchNamespacedConfigMap(
      {
        name: 'drift-config',
        namespace,
        body: { data: { ERRATA_KAFKA_BROKERS: 'elsewhere:9092' } },
        fieldManager: 'kubectl-edit',
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const restored = await eventually(async () => {
      const d = await kube.apps.readNamespacedDeployment({ name, namespace });
      return d.spec!.replicas === 2 && d.spec!.template.spec!.containers[0]!.image === 'registry.example.com/errata:0.1.0'
        ? d
        : undefined;
    }, 'the dispatcher as the spec says');
    expect(restored.metadata!.annotations!['errata.dev/spec-hash']).toBe(edited.metadata!.annotations!['errata.dev/spec-hash']);
    await eventually(async () => {
      const config = await kube.core.readNamespacedConfigMap({ name: 'drift-config', namespace });
      return config.data!.ERRATA_KAFKA_BROKERS === 'kafka:9092' ? true : undefined;
    }, 'the ConfigMap as the spec says');
  });

  it('is refused by the API server when the spec is wrong, with a readable message', async () => {
    const namespace = await freshNamespace(kube);
    const refusal = async (body: unknown) => {
      try {
        await createErrata(kube, namespace, 'bad', body);
      } catch (error) {
        return String((error as { body?: unknown }).body ?? error);
      }
      throw new Error('the API server accepted a wrong spec');
    };
    expect(await refusal({ ...spec(), ingest: { autoscaling: { minReplicas: 5, maxReplicas: 2 } } })).toMatch(
      /minReplicas must not exceed maxReplicas/,
    );
    expect(await refusal({ ...spec(), version: 'not a tag' })).toMatch(/spec\.version/);
    const twice = [
      { name: 'ERRATA_LOG_LEVEL', value: 'debug' },
      { name: 'ERRATA_LOG_LEVEL', value: 'info' },
    ];
    expect(await refusal({ ...spec(), mcp: { env: twice } })).toMatch(/spec\.mcp\.env\[1\]: Duplicate value/);
    // What a pod would refuse at start (a crash loop that says nothing to `kubectl apply`).
    expect(await refusal({ ...spec(), kafka: { brokers: ['kafka'] } })).toMatch(/spec\.kafka\.brokers\[0\]/);
    expect(await refusal({ ...spec(), clickhouse: { url: 'http://clickhouse:8123', database: 'errata-prod' } })).toMatch(
      /spec\.clickhouse\.database/,
    );
    expect(await refusal({ ...spec(), s3: { bucket: 'Maps' } })).toMatch(/spec\.s3\.bucket/);
    expect(await refusal({ ...spec(), image: 'registry.example.com/errata:1.0' })).toMatch(/spec\.image/);
    expect(await refusal({ ...spec(), clickhouse: { url: 'http://default:secret@clickhouse:8123' } })).toMatch(
      /spec\.clickhouse\.url/,
    );
    expect(await refusal({ ...spec(), postgres: { url: 'postgres://user:secret@db/errata' } })).toMatch(/spec\.postgres\.url/);
    try {
      await createErrata(kube, namespace, 'a-name-far-too-long-for-the-objects-it-names', spec());
      throw new Error('the API server accepted a name over 40 characters');
    } catch (error) {
      expect(String((error as { body?: unknown }).body ?? error)).toMatch(/metadata\.name must start with a letter/);
    }
    const { kafka: _kafka, ...withoutKafka } = spec();
    expect(await refusal(withoutKafka)).toMatch(/spec\.kafka: Required value/);
  });

  it('leaves alone a copy of an object it made that kept its labels, since this Errata does not control it', async () => {
    const namespace = await running('copied');
    const ingest = await kube.core.readNamespacedService({ name: 'copied-ingest', namespace });
    // A copy-edit: another Service for the same pods, its labels kept, no owner reference.
    await kube.core.createNamespacedService({
      namespace,
      body: {
        metadata: { name: 'copied-ingest-public', labels: ingest.metadata!.labels },
        spec: { selector: ingest.spec!.selector, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
      },
    });
    // A change, so the operator applies and prunes at once, then a few resyncs (every 2 s here).
    await patchErrataSpec(kube, namespace, 'copied', { dispatcher: { replicas: 3 } });
    await eventually(async () => {
      const dispatcher = await kube.apps.readNamespacedDeployment({ name: 'copied-dispatcher', namespace });
      return dispatcher.spec!.replicas === 3 ? true : undefined;
    }, 'the change applied');
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect((await owned(namespace)).services).toContain('copied-ingest-public');
  });

  it('leaves what it owned to the garbage collector when the resource is deleted', async () => {
    const namespace = await running('gone');
    const uid = (await getErrata(kube, namespace, 'gone')).metadata.uid;
    await kube.custom.deleteNamespacedCustomObject({
      group: 'errata.dev',
      version: 'v1alpha1',
      namespace,
      plural: 'erratas',
      name: 'gone',
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // No controller runs here to collect them: each carries the owner reference that makes the
    // garbage collector delete it, and the operator does not recreate or touch them.
    const deployments = (await kube.apps.listNamespacedDeployment({ namespace })).items;
    expect(deployments).toHaveLength(3);
    for (const d of deployments)
      expect(d.metadata!.ownerReferences).toEqual([expect.objectContaining({ uid, blockOwnerDeletion: true })]);
    const configMap = await kube.core.readNamespacedConfigMap({ name: 'gone-config', namespace });
    expect(configMap.metadata!.ownerReferences![0]!.uid).toBe(uid);
  });
});

describe('leader election', () => {
  it('lets one of two operators reconcile, and the other take over when it stops', async () => {
    const namespace = await freshNamespace(kube);
    const start = () => startTestOperator({ kubeConfig: kube.config, logger, leaseNamespace: namespace });
    const first = await start();
    await eventually(async () => (first.isLeader() ? true : undefined), 'the first to lead');
    const second = await start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect([first.isLeader(), second.isLeader()]).toEqual([true, false]);
      await first.stop();
      await eventually(async () => (second.isLeader() ? true : undefined), 'the second to take over', 15_000);
    } finally {
      await second.stop();
    }
  });
});
