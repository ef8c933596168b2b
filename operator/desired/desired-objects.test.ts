import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PAGES } from '../../services/dashboard/dashboard-routes.ts';
import { API_VERSION, errataSpec, type ErrataResource } from '../api/errata-resource.ts';
import { desiredObjects } from './desired-objects.ts';
import { SPEC_HASH_ANNOTATION } from './metadata.ts';
import { CONFIG_HASH_ANNOTATION, migrationJob, migrationJobName } from './workloads.ts';

function resource(overrides: Record<string, unknown> = {}): ErrataResource {
  return {
    apiVersion: API_VERSION,
    kind: 'Errata',
    metadata: { name: 'prod', namespace: 'errata', uid: '6f1c1b1e-0000-4000-8000-000000000001', generation: 3 },
    spec: errataSpec.parse({
      image: 'registry.example.com/errata',
      version: '0.2.0',
      ingest: { autoscaling: { minReplicas: 2, maxReplicas: 6 }, resources: { requests: { cpu: '250m', memory: '256Mi' } } },
      mcp: { replicas: 2, env: [{ name: 'ERRATA_LOG_LEVEL', value: 'debug' }] },
      dispatcher: { replicas: 3 },
      kafka: { brokers: ['kafka-0:9092', 'kafka-1:9092'], topicPrefix: 'prod.' },
      clickhouse: { url: 'http://clickhouse:8123', password: { name: 'ch', key: 'password' } },
      postgres: { url: { name: 'pg', key: 'url' } },
      s3: {
        bucket: 'maps',
        endpoint: 'https://s3.example.com',
        accessKeyId: { name: 's3', key: 'id' },
        secretAccessKey: { name: 's3', key: 'secret' },
      },
      secretsKey: { name: 'errata', key: 'secrets-key' },
      ingress: { host: 'errata.example.com', className: 'nginx', tlsSecretName: 'errata-tls', annotations: { 'a/b': 'c' } },
      monitoring: { serviceMonitor: true, prometheusRule: true },
      ...overrides,
    }),
  };
}

const observed = { serviceMonitorCrdInstalled: true, prometheusRuleCrdInstalled: true };
const byKey = (objects: Array<{ kind: string; metadata: { name: string } }>) =>
  new Map(objects.map((o) => [`${o.kind}/${o.metadata.name}`, o as any]));

describe('desired objects', () => {
  it('builds every owned object, each labelled, owned by the resource and stamped with its hash', () => {
    const objects = desiredObjects(resource(), observed);
    expect([...byKey(objects).keys()]).toEqual([
      'ConfigMap/prod-config',
      'Service/prod-ingest',
      'Service/prod-mcp',
      'Service/prod-dispatcher',
      'Deployment/prod-ingest',
      'Deployment/prod-mcp',
      'Deployment/prod-dispatcher',
      'HorizontalPodAutoscaler/prod-ingest',
      'PodDisruptionBudget/prod-ingest',
      'PodDisruptionBudget/prod-mcp',
      'PodDisruptionBudget/prod-dispatcher',
      'Ingress/prod',
      'ServiceMonitor/prod',
      'PrometheusRule/prod',
    ]);
    for (const object of objects as any[]) {
      expect(object.metadata.namespace).toBe('errata');
      expect(object.metadata.labels).toMatchObject({
        'app.kubernetes.io/name': 'errata',
        'app.kubernetes.io/instance': 'prod',
        'app.kubernetes.io/managed-by': 'errata-operator',
      });
      expect(object.metadata.ownerReferences).toEqual([
        {
          apiVersion: 'errata.dev/v1alpha1',
          kind: 'Errata',
          name: 'prod',
          uid: resource().metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(object.metadata.annotations[SPEC_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
    }
  });

  it('runs each role from the one image with probes, ports, settings and credentials by reference only', () => {
    const objects = byKey(desiredObjects(resource(), observed));
    const mcp = objects.get('Deployment/prod-mcp').spec;
    expect(mcp.replicas).toBe(2);
    const [container] = mcp.template.spec.containers;
    expect(container).toMatchObject({
      image: 'registry.example.com/errata:0.2.0',
      args: ['serve', 'mcp'],
      ports: [{ name: 'http', containerPort: 8000, protocol: 'TCP' }],
      readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
      // Liveness does not depend on the stores: an outage must not restart every pod.
      livenessProbe: { tcpSocket: { port: 'http' } },
      // A slow start (stores answering late) is not restarted by liveness before it listens.
      startupProbe: { tcpSocket: { port: 'http' }, failureThreshold: 30, periodSeconds: 10 },
      envFrom: [{ configMapRef: { name: 'prod-config' } }],
      securityContext: { runAsNonRoot: true, allowPrivilegeEscalation: false, readOnlyRootFilesystem: true },
    });
    expect(mcp.template.spec.automountServiceAccountToken).toBe(false);
    expect(container.env).toEqual([
      { name: 'ERRATA_POSTGRES_URL', valueFrom: { secretKeyRef: { name: 'pg', key: 'url' } } },
      { name: 'ERRATA_SECRETS_KEY', valueFrom: { secretKeyRef: { name: 'errata', key: 'secrets-key' } } },
      { name: 'ERRATA_CLICKHOUSE_PASSWORD', valueFrom: { secretKeyRef: { name: 'ch', key: 'password' } } },
      { name: 'ERRATA_S3_ACCESS_KEY_ID', valueFrom: { secretKeyRef: { name: 's3', key: 'id' } } },
      { name: 'ERRATA_S3_SECRET_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 's3', key: 'secret' } } },
      { name: 'ERRATA_LOG_LEVEL', value: 'debug' },
    ]);
    // The HPA owns the ingest replica count; the Deployment leaves it out.
    const ingest = objects.get('Deployment/prod-ingest').spec;
    expect(ingest.replicas).toBeUndefined();
    expect(ingest.template.spec.containers[0].resources).toEqual({ requests: { cpu: '250m', memory: '256Mi' } });
    expect(objects.get('HorizontalPodAutoscaler/prod-ingest').spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'prod-ingest' },
      minReplicas: 2,
      maxReplicas: 6,
    });
    expect(objects.get('ConfigMap/prod-config').data).toMatchObject({
      ERRATA_BASE_URL: 'https://errata.example.com',
      ERRATA_KAFKA_BROKERS: 'kafka-0:9092,kafka-1:9092',
      ERRATA_KAFKA_TOPIC_PREFIX: 'prod.',
      ERRATA_S3_ENDPOINT: 'https://s3.example.com',
      ERRATA_EVENT_RETENTION_DAYS: '90',
      // The dashboard's sign-in throttle counts the address the ingress controller saw.
      ERRATA_TRUSTED_PROXIES: '1',
    });
    expect(JSON.stringify([...objects.values()])).not.toMatch(/password"?:\s*"[^{]/);
  });

  it('gives the dashboard role single sign-on from the named Secret by reference, and no other role', () => {
    const objects = byKey(
      desiredObjects(resource({ sso: { secretName: 'errata-sso', createUsers: true, name: 'Keycloak' } }), observed),
    );
    const env = (role: string) =>
      objects.get(`Deployment/prod-${role}`).spec.template.spec.containers[0].env as Array<{ name: string }>;
    const mcpEnv = env('mcp');
    const ref = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: 'errata-sso', key } } });
    expect(mcpEnv).toEqual(
      expect.arrayContaining([
        ref('ERRATA_OIDC_ISSUER', 'issuer'),
        ref('ERRATA_OIDC_CLIENT_ID', 'clientId'),
        ref('ERRATA_OIDC_CLIENT_SECRET', 'clientSecret'),
        ref('ERRATA_OIDC_ROLES', 'roles'),
        { name: 'ERRATA_OIDC_NAME', value: 'Keycloak' },
        { name: 'ERRATA_OIDC_CREATE_USERS', value: 'true' },
        { name: 'ERRATA_OIDC_TRUST_UNVERIFIED_EMAIL', value: 'false' },
      ]),
    );
    // The role's own env still comes last, so it can override.
    expect(mcpEnv.at(-1)).toEqual({ name: 'ERRATA_LOG_LEVEL', value: 'debug' });
    // A variable the role names again is the role's alone: a name twice in the list fails server-side apply.
    const overriding = byKey(
      desiredObjects(
        resource({
          sso: { secretName: 'errata-sso', createUsers: true, name: 'Keycloak' },
          mcp: { env: [{ name: 'ERRATA_OIDC_CREATE_USERS', value: 'false' }] },
        }),
        observed,
      ),
    ).get('Deployment/prod-mcp').spec.template.spec.containers[0].env as Array<{ name: string; value?: string }>;
    expect(overriding.filter((v) => v.name === 'ERRATA_OIDC_CREATE_USERS')).toEqual([
      { name: 'ERRATA_OIDC_CREATE_USERS', value: 'false' },
    ]);
    expect(mcpEnv.some((v) => v.name === 'ERRATA_OIDC_ROLE_CLAIM')).toBe(false);
    for (const role of ['ingest', 'dispatcher']) expect(env(role).some((v) => v.name.startsWith('ERRATA_OIDC_'))).toBe(false);
    expect(JSON.stringify(objects.get('ConfigMap/prod-config').data)).not.toContain('OIDC');
  });

  it("gives a role with a memory limit from 1 GiB to under 4 GiB larger semi-spaces, unless the role's env sets NODE_OPTIONS", () => {
    const objects = byKey(
      desiredObjects(
        resource({
          ingest: { resources: { limits: { memory: '1Gi' } } },
          mcp: { resources: { limits: { memory: '2Gi' } }, env: [{ name: 'NODE_OPTIONS', value: '--enable-source-maps' }] },
          dispatcher: { resources: { limits: { memory: '512Mi' } } },
        }),
        observed,
      ),
    );
    const nodeOptions = (role: string) =>
      (objects.get(`Deployment/prod-${role}`).spec.template.spec.containers[0].env as Array<{ name: string }>).filter(
        (v) => v.name === 'NODE_OPTIONS',
      );
    expect(nodeOptions('ingest')).toEqual([{ name: 'NODE_OPTIONS', value: '--max-semi-space-size=16' }]);
    // The user's NODE_OPTIONS replaces the operator's whole, and stays the only one.
    expect(nodeOptions('mcp')).toEqual([{ name: 'NODE_OPTIONS', value: '--enable-source-maps' }]);
    expect(nodeOptions('dispatcher')).toEqual([]);
    const job = migrationJob(resource({ ingest: { resources: { limits: { memory: '1Gi' } } } }));
    expect(JSON.stringify(job)).not.toContain('NODE_OPTIONS');
  });

  it('refuses an sso section without its Secret, or with an unknown key', () => {
    expect(() => resource({ sso: { createUsers: true } })).toThrow(/secretName/);
    expect(() => resource({ sso: { secretName: 'errata-sso', clientSecret: 'x' } })).toThrow(/clientSecret/);
  });

  it('routes SDK ingest and uploads to ingest, and the agent surfaces and dashboard to mcp', () => {
    const ingress = byKey(desiredObjects(resource(), observed)).get('Ingress/prod');
    expect(ingress.metadata.annotations['a/b']).toBe('c');
    expect(ingress.spec).toMatchObject({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['errata.example.com'], secretName: 'errata-tls' }],
    });
    const routes = ingress.spec.rules[0].http.paths.map((p: any) => `${p.pathType} ${p.path} -> ${p.backend.service.name}`);
    expect(routes).toEqual([
      'Prefix /api -> prod-ingest',
      'Prefix /api/v1 -> prod-mcp',
      'Prefix /mcp -> prod-mcp',
      'Exact /llms.txt -> prod-mcp',
      'Prefix /organizations -> prod-mcp',
      'Exact / -> prod-mcp',
      'Exact /login -> prod-mcp',
      'Exact /logout -> prod-mcp',
      'Prefix /account -> prod-mcp',
      'Exact /setup -> prod-mcp',
      'Exact /reset -> prod-mcp',
      'Prefix /invitations -> prod-mcp',
      'Prefix /sign-in -> prod-mcp',
      'Prefix /assets -> prod-mcp',
    ]);
  });

  it('sends every page the dashboard serves to mcp, and keeps /metrics and /healthz in the cluster', () => {
    const paths: Array<{ path: string; pathType: string; backend: { service: { name: string } } }> = byKey(
      desiredObjects(resource(), observed),
    ).get('Ingress/prod').spec.rules[0].http.paths;
    // Kubernetes' matching: the longest path wins; Prefix matches whole path elements.
    const serviceFor = (path: string) =>
      paths
        .filter((p) => (p.pathType === 'Exact' ? path === p.path : path === p.path || path.startsWith(`${p.path}/`)))
        .sort((a, b) => b.path.length - a.path.length)[0]?.backend.service.name;
    const dashboard = [
      // Every fixed page, the sign-on's two (registered at the provider, docs/kubernetes.md)
      // among them, and the invitations' links: those three were unrouted before.
      ...PAGES,
      '/invitations/Abc123',
      '/organizations/default/issues/WEB-1',
      '/assets/style.0123abcd.css',
    ];
    expect(dashboard.filter((path) => serviceFor(path) !== 'prod-mcp')).toEqual([]);
    expect(serviceFor('/api/1/envelope/')).toBe('prod-ingest');
    expect(serviceFor('/metrics')).toBeUndefined();
    expect(serviceFor('/healthz')).toBeUndefined();
  });

  it('changes only the objects a spec change affects', () => {
    const hashes = (r: ErrataResource) =>
      new Map([...byKey(desiredObjects(r, observed))].map(([key, o]) => [key, o.metadata.annotations[SPEC_HASH_ANNOTATION]]));
    const before = hashes(resource());
    const changed = (after: Map<string, string>) =>
      [...after].filter(([key, hash]) => before.get(key) !== hash).map(([key]) => key);
    expect(changed(hashes(resource({ dispatcher: { replicas: 5 } })))).toEqual(['Deployment/prod-dispatcher']);
    // A setting every role reads rolls every role (through the pod template's config hash).
    expect(changed(hashes(resource({ eventRetentionDays: 30 })))).toEqual([
      'ConfigMap/prod-config',
      'Deployment/prod-ingest',
      'Deployment/prod-mcp',
      'Deployment/prod-dispatcher',
    ]);
    expect(hashes(resource())).toEqual(before);
  });

  it('leaves out what is switched off: autoscalers, budgets, ingress, and a ServiceMonitor or PrometheusRule without its CRD', () => {
    const plain = resource({ ingest: { replicas: 1 }, ingress: undefined, podDisruptionBudgets: { enabled: false } });
    const withoutCrds = { ...observed, serviceMonitorCrdInstalled: false, prometheusRuleCrdInstalled: false };
    const kinds = desiredObjects(plain, withoutCrds).map((o) => o.kind);
    expect(new Set(kinds)).toEqual(new Set(['ConfigMap', 'Service', 'Deployment']));
    const switchedOff = resource({ monitoring: { serviceMonitor: false, prometheusRule: false } });
    expect(desiredObjects(switchedOff, observed).map((o) => o.kind)).not.toContain('PrometheusRule');
    const config = byKey(desiredObjects(plain, observed)).get('ConfigMap/prod-config');
    expect(config.data.ERRATA_BASE_URL).toBe('http://prod-ingest.errata.svc:8000');
    expect(config.data.ERRATA_TRUSTED_PROXIES).toBeUndefined();
  });

  it('puts the shipped rules file, as it is, in the PrometheusRule', () => {
    const rule = byKey(desiredObjects(resource(), observed)).get('PrometheusRule/prod');
    const file = parse(readFileSync(new URL('../../charts/errata/monitoring/errata-rules.yaml', import.meta.url), 'utf8'));
    expect(rule.apiVersion).toBe('monitoring.coreos.com/v1');
    expect(rule.spec).toEqual(file);
    expect(rule.spec.groups.flatMap((g: any) => g.rules.map((r: any) => r.alert)).filter(Boolean)).toContain(
      'ErrataDispatcherNotConsuming',
    );
  });

  it('migrates with a Job per target version and settings, which carries its settings as values', () => {
    const r = resource();
    const job = migrationJob(r) as any;
    expect(job.metadata.name).toBe(migrationJobName(r));
    expect(job.metadata.name).toMatch(/^prod-migrate-[0-9a-f]{10}$/);
    expect(job.metadata.labels['errata.dev/migrates-to']).toBe('0.2.0');
    // A label value begins and ends with a letter or digit; image tags need not.
    const label = (version: string) => (migrationJob(resource({ version })) as any).metadata.labels['errata.dev/migrates-to'];
    expect(label('_1.0-rc.')).toBe('1.0-rc');
    expect(label(`${'1'.repeat(62)}.2`)).toBe('1'.repeat(62));
    expect(job.spec.activeDeadlineSeconds).toBe(1800);
    expect(migrationJobName({ ...r, spec: { ...r.spec, version: '0.3.0' } })).not.toBe(job.metadata.name);
    // A Job's pod template cannot change: new settings make a new Job.
    const other = resource({ imagePullPolicy: 'Always' });
    expect(migrationJobName(other)).not.toBe(job.metadata.name);
    // Settings it reads from the ConfigMap's values, and credentials from another Secret, too
    // (before, the Job read the ConfigMap by name, so its name hashed neither).
    const otherDatabase = resource({ clickhouse: { ...r.spec.clickhouse, database: 'errata_new' } });
    expect(migrationJobName(otherDatabase)).not.toBe(job.metadata.name);
    const otherPostgres = resource({ postgres: { url: { name: 'errata-new-db', key: 'url' } } });
    expect(migrationJobName(otherPostgres)).not.toBe(job.metadata.name);
    const container = job.spec.template.spec.containers[0];
    expect(container).toMatchObject({ image: 'registry.example.com/errata:0.2.0', args: ['migrate'] });
    expect(container.envFrom).toBeUndefined();
    expect(container.env).toContainEqual({ name: 'ERRATA_CLICKHOUSE_DATABASE', value: r.spec.clickhouse.database });
    expect(container.env).toContainEqual({
      name: 'ERRATA_POSTGRES_URL',
      valueFrom: { secretKeyRef: { name: r.spec.postgres.url.name, key: r.spec.postgres.url.key } },
    });
    expect(job.spec.template.spec.restartPolicy).toBe('Never');
    // A namespace with a ResourceQuota refuses a pod that states no resources.
    expect(container.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } });
    const bigger = { requests: { cpu: '1', memory: '1Gi' }, limits: { cpu: '2', memory: '2Gi' } };
    const sized = migrationJob(resource({ migration: { resources: bigger } })) as any;
    expect(sized.spec.template.spec.containers[0].resources).toEqual(bigger);
    const deployments = byKey(desiredObjects({ ...r, spec: { ...r.spec, version: '0.3.0' } }, observed));
    expect(deployments.get('Deployment/prod-mcp').spec.template.spec.containers[0].image).toBe(
      'registry.example.com/errata:0.3.0',
    );
    const annotations = deployments.get('Deployment/prod-mcp').spec.template.metadata.annotations;
    expect(annotations[CONFIG_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
  });
});
