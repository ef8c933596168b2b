// The running parts: the shared ConfigMap, one Deployment per role (`errata serve <role>`) and
// the migration Job (`errata migrate`), all from the one image. Deployments run `version`, which
// the reconciler moves to the spec's version only once that version's migrations succeeded.
import { ROLES, type ErrataResource, type Role } from '../api/errata-resource.ts';
import { extraEnv, publicUrls, secretEnv, sharedSettings } from './environment.ts';
import { HTTP_PORT, objectName, ownedMetadata, selectorLabels, specHash } from './metadata.ts';

export const CONFIG_HASH_ANNOTATION = 'errata.dev/config-hash';

export function configMap(resource: ErrataResource) {
  const { name, namespace } = resource.metadata;
  const data = sharedSettings(resource.spec, publicUrls(name, namespace, resource.spec).ingest);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: ownedMetadata(resource, objectName(resource, 'config'), 'config', data),
    data,
  };
}

/** What every Errata container shares: image, settings, credentials, and a locked-down runtime. */
function container(resource: ErrataResource, version: string, args: string[], role?: Role) {
  const { spec } = resource;
  return {
    name: 'errata',
    image: `${spec.image}:${version}`,
    imagePullPolicy: spec.imagePullPolicy,
    args,
    envFrom: [{ configMapRef: { name: objectName(resource, 'config') } }],
    env: [...secretEnv(spec), ...(role ? extraEnv(spec, role) : [])],
    securityContext: {
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  };
}

const podSecurity = { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

export function roleDeployment(resource: ErrataResource, role: Role, version: string) {
  const roleSpec = resource.spec[role];
  const selector = selectorLabels(resource, role);
  const probe = (failureThreshold: number) => ({
    httpGet: { path: '/healthz', port: 'http' },
    periodSeconds: 10,
    timeoutSeconds: 3,
    failureThreshold,
  });
  const body = {
    // With autoscaling the HPA owns the replica count: leaving it out keeps apply from resetting it.
    ...(roleSpec.autoscaling ? {} : { replicas: roleSpec.replicas }),
    selector: { matchLabels: selector },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
    template: {
      metadata: {
        labels: selector,
        // A settings change rolls the pods, which read their environment only at start.
        annotations: { [CONFIG_HASH_ANNOTATION]: specHash(configMap(resource).data) },
      },
      spec: {
        securityContext: podSecurity,
        terminationGracePeriodSeconds: 45,
        containers: [
          {
            ...container(resource, version, ['serve', role], role),
            ports: [{ name: 'http', containerPort: HTTP_PORT, protocol: 'TCP' }],
            readinessProbe: probe(3),
            livenessProbe: { ...probe(6), initialDelaySeconds: 10 },
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

/** The Job name carries the version and the settings' hash: a new one per target, kept as its record. */
export function migrationJobName(resource: ErrataResource, version: string): string {
  const safe = version
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 30)
    .replace(/-+$/, '');
  return objectName(resource, `migrate-${safe}-${specHash([version, configMap(resource).data]).slice(0, 6)}`);
}

export function migrationJob(resource: ErrataResource, version: string) {
  const body = {
    backoffLimit: 2,
    ttlSecondsAfterFinished: 7 * 86_400,
    template: {
      metadata: { labels: selectorLabels(resource, 'migrate') },
      spec: {
        restartPolicy: 'Never',
        securityContext: podSecurity,
        containers: [container(resource, version, ['migrate'])],
        volumes: [{ name: 'tmp', emptyDir: {} }],
      },
    },
  };
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: ownedMetadata(resource, migrationJobName(resource, version), 'migrate', body),
    spec: body,
  };
}

export const roleDeployments = (resource: ErrataResource, version: string) =>
  ROLES.map((role) => roleDeployment(resource, role, version));
