// What keeps the roles sized, available and watched: HorizontalPodAutoscalers for roles with
// autoscaling, PodDisruptionBudgets (on by default), and for the Prometheus Operator a
// ServiceMonitor and a PrometheusRule (Errata's alerts and recording rules), each when switched
// on and its CRD is installed.
import { ROLES, type ErrataResource, type Role } from '../api/errata-resource.ts';
import { INSTANCE_LABEL, objectName, ownedMetadata, selectorLabels } from './metadata.ts';
import { monitoringRules } from './monitoring-rules.ts';

export function autoscaler(resource: ErrataResource, role: Role) {
  const scaling = resource.spec[role].autoscaling;
  if (!scaling) return undefined;
  const body = {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: objectName(resource, role) },
    minReplicas: scaling.minReplicas,
    maxReplicas: scaling.maxReplicas,
    metrics: [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: scaling.targetCPUUtilizationPercentage } },
      },
    ],
  };
  return {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: ownedMetadata(resource, objectName(resource, role), role, body),
    spec: body,
  };
}

/** One pod of a role may be evicted at a time: a node drain proceeds, and a role of two or more pods keeps serving. */
export function disruptionBudget(resource: ErrataResource, role: Role) {
  if (!resource.spec.podDisruptionBudgets.enabled) return undefined;
  const body = {
    maxUnavailable: 1,
    selector: { matchLabels: selectorLabels(resource, role) },
  };
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: ownedMetadata(resource, objectName(resource, role), role, body),
    spec: body,
  };
}

export function serviceMonitor(resource: ErrataResource, crdInstalled: boolean) {
  if (!resource.spec.monitoring.serviceMonitor || !crdInstalled) return undefined;
  const body = {
    selector: { matchLabels: { 'app.kubernetes.io/name': 'errata', [INSTANCE_LABEL]: resource.metadata.name } },
    endpoints: [{ port: 'http', path: '/metrics', interval: '30s' }],
  };
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: ownedMetadata(resource, objectName(resource), 'metrics', body),
    spec: body,
  };
}

/** Errata's shipped rules (charts/errata/monitoring/errata-rules.yaml), for Prometheus to load. */
export function prometheusRule(resource: ErrataResource, crdInstalled: boolean) {
  if (!resource.spec.monitoring.prometheusRule || !crdInstalled) return undefined;
  const body = monitoringRules();
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: ownedMetadata(resource, objectName(resource), 'metrics', body),
    spec: body,
  };
}

export const perRole = <T>(build: (role: Role) => T | undefined): T[] =>
  ROLES.map(build).filter((object): object is T => object !== undefined);
