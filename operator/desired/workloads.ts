// The running parts: the shared ConfigMap, one Deployment per role (`errata serve <role>`) and
// the migration Job (`errata migrate`), all from the one image at the spec's version. The
// reconciler applies the Deployments only once the Job for that version and settings succeeded.
import { ROLES, type ErrataResource, type Role } from '../api/errata-resource.ts';
import { extraEnv, publicUrls, secretEnv, sharedSettings, ssoEnv } from './environment.ts';
import { nodeOptionsEnv } from './node-options.ts';
import { HTTP_PORT, objectName, ownedMetadata, selectorLabels, specHash } from './metadata.ts';

export const CONFIG_HASH_ANNOTATION = 'errata.dev/config-hash';

/**
 * Names the migration Job the ConfigMap's settings were migrated by: the ConfigMap is applied only
 * after it succeeded, so this survives where status.migratedJob does not (a CRD left at an older
 * version prunes that field, and the Job itself goes 7 days after it finished).
 */
export const MIGRATED_JOB_ANNOTATION = 'errata.dev/migrated-by-job';

function settingsOf(resource: ErrataResource): Record<string, string> {
  const { name, namespace } = resource.metadata;
  return sharedSettings(resource.spec, publicUrls(name, namespace, resource.spec).ingest);
}

export function configMap(resource: ErrataResource) {
  const data = settingsOf(resource);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: ownedMetadata(resource, objectName(resource, 'config'), 'config', data, {
      annotations: { [MIGRATED_JOB_ANNOTATION]: migrationJobName(resource) },
    }),
    data,
  };
}

/** What every Errata container shares: image, settings, credentials, and a locked-down runtime. */
function container(resource: ErrataResource, args: string[], role?: Role) {
  const { spec } = resource;
  return {
    name: 'errata',
    image: `${spec.image}:${spec.version}`,
    imagePullPolicy: spec.imagePullPolicy,
    args,
    envFrom: [{ configMapRef: { name: objectName(resource, 'config') } }],
    env: withRoleEnv(
      [...secretEnv(spec), ...ssoEnv(spec, role), ...(role ? nodeOptionsEnv(spec[role]) : [])],
      role ? extraEnv(spec, role) : [],
    ),
    securityContext: {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  };
}

/**
 * The operator's entries, then the role's own env, which wins: an entry of the operator's that
 * the role names again is left out. Both kept, the list named one variable twice, which
 * server-side apply refuses, and that Deployment's failed apply held back every object after it.
 */
function withRoleEnv<T extends { name: string }>(operator: T[], roleEnv: T[]): T[] {
  const named = new Set(roleEnv.map((v) => v.name));
  return [...operator.filter((v) => !named.has(v.name)), ...roleEnv];
}

// The image's user is 1000 (`node`); stating it lets the kubelet verify runAsNonRoot.
const podSecurity = {
  runAsNonRoot: true,
  runAsUser: 1000,
  runAsGroup: 1000,
  fsGroup: 1000,
  seccompProfile: { type: 'RuntimeDefault' },
};

function roleDeployment(resource: ErrataResource, role: Role) {
  const roleSpec = resource.spec[role];
  const selector = selectorLabels(resource, role);
  const timing = { periodSeconds: 10, timeoutSeconds: 3 };
  const body = {
    // With autoscaling the HPA owns the replica count: leaving it out keeps apply from resetting it.
    ...(roleSpec.autoscaling ? {} : { replicas: roleSpec.replicas }),
    selector: { matchLabels: selector },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    template: {
      metadata: {
        labels: selector,
        // A settings change rolls the pods, which read their environment only at start.
        annotations: { [CONFIG_HASH_ANNOTATION]: specHash(settingsOf(resource)) },
      },
      spec: {
        securityContext: podSecurity,
        // The roles never call the Kubernetes API: no token of the namespace's account in their pods.
        automountServiceAccountToken: false,
        terminationGracePeriodSeconds: 45,
        containers: [
          {
            ...container(resource, ['serve', role], role),
            ports: [{ name: 'http', containerPort: HTTP_PORT, protocol: 'TCP' }],
            // Ready while the stores it uses answer (/healthz); alive while it listens: an outage
            // of Postgres, ClickHouse or Kafka takes pods out of service, it does not restart them.
            readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, failureThreshold: 3, ...timing },
            livenessProbe: { tcpSocket: { port: 'http' }, failureThreshold: 6, initialDelaySeconds: 10, ...timing },
            // A role listens once its stores answered and migrations were checked, which a slow
            // database can take past liveness's 70 s: until it first listens (up to 5 minutes),
            // liveness waits rather than restart a start that was getting there.
            startupProbe: { tcpSocket: { port: 'http' }, failureThreshold: 30, ...timing },
            ...(roleSpec.resources ? { resources: roleSpec.resources } : {}),
          },
        ],
        volumes: [{ name: 'tmp', emptyDir: {} }],
      },
    },
  };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: ownedMetadata(resource, objectName(resource, role), role, body),
    spec: body,
  };
}

/** Stops a migration that cannot start (an image that does not pull, a missing Secret), so that it fails visibly. */
const MIGRATION_DEADLINE_SECONDS = 30 * 60;
const MIGRATION_VERSION_LABEL = 'errata.dev/migrates-to';

/**
 * A Job's pod template cannot change, so its name is the hash of its body: a new target version
 * or new settings (a database, a bucket, another credential's Secret) make a new Job, and the
 * old one stays as the record. Short enough for any name the CRD allows (at most 40 characters);
 * the version is in a label.
 */
export function migrationJobName(resource: ErrataResource): string {
  return objectName(resource, `migrate-${specHash(migrationJobBody(resource)).slice(0, 10)}`);
}

function migrationJobBody(resource: ErrataResource) {
  return {
    backoffLimit: 2,
    activeDeadlineSeconds: MIGRATION_DEADLINE_SECONDS,
    ttlSecondsAfterFinished: 7 * 86_400,
    template: {
      metadata: { labels: selectorLabels(resource, 'migrate') },
      spec: {
        restartPolicy: 'Never',
        securityContext: podSecurity,
        containers: [migrationContainer(resource)],
        volumes: [{ name: 'tmp', emptyDir: {} }],
      },
    },
  };
}

/**
 * The migration carries its settings as values rather than from the ConfigMap: so they are in
 * the hash that names the Job (a changed ClickHouse database runs a migration, not only a new
 * version), and it migrates what it was made for even when its pod starts before the ConfigMap
 * it would read is applied.
 */
function migrationContainer(resource: ErrataResource) {
  const { envFrom: _fromConfigMap, env, ...rest } = container(resource, ['migrate']);
  const settings = Object.entries(settingsOf(resource)).map(([name, value]) => ({ name, value }));
  return { ...rest, env: [...settings, ...env], resources: resource.spec.migration.resources };
}

export function migrationJob(resource: ErrataResource) {
  const body = migrationJobBody(resource);
  // A label value begins and ends with a letter or digit: a tag may start with "_" or end with
  // "-" (or do so once cut to 63), and the API server refused such a Job, so nothing migrated.
  const versionLabel = resource.spec.version
    .replace(/[^A-Za-z0-9_.-]/g, '-')
    .slice(0, 63)
    .replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, '');
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: ownedMetadata(resource, migrationJobName(resource), 'migrate', body, {
      labels: { [MIGRATION_VERSION_LABEL]: versionLabel },
    }),
    spec: body,
  };
}

export const roleDeployments = (resource: ErrataResource) => ROLES.map((role) => roleDeployment(resource, role));
