// Everything an `Errata` should own, built by pure functions from the resource and facts the
// reconciler observed: whether the ServiceMonitor and PrometheusRule CRDs exist. The reconciler
// applies these and prunes owned objects of these kinds that are not in the list; what pods run
// from (the ConfigMap, Deployments, autoscalers) only once the spec's migration succeeded.
import type { ErrataResource } from '../api/errata-resource.ts';
import { autoscaler, disruptionBudget, perRole, prometheusRule, serviceMonitor } from './availability.ts';
import { ingress, roleService } from './networking.ts';
import { configMap, roleDeployments } from './workloads.ts';

interface Observed {
  serviceMonitorCrdInstalled: boolean;
  prometheusRuleCrdInstalled: boolean;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
}

/** The kinds the operator owns and prunes, in the order it applies them. */
export const OWNED_KINDS = [
  'ConfigMap',
  'Service',
  'Deployment',
  'HorizontalPodAutoscaler',
  'PodDisruptionBudget',
  'Ingress',
  'ServiceMonitor',
  'PrometheusRule',
] as const;

export function desiredObjects(resource: ErrataResource, observed: Observed): KubeObject[] {
  const ingressObject = ingress(resource);
  const monitor = serviceMonitor(resource, observed.serviceMonitorCrdInstalled);
  const rules = prometheusRule(resource, observed.prometheusRuleCrdInstalled);
  return [
    configMap(resource),
    ...perRole((role) => roleService(resource, role)),
    ...roleDeployments(resource),
    ...perRole((role) => autoscaler(resource, role)),
    ...perRole((role) => disruptionBudget(resource, role)),
    ...(ingressObject ? [ingressObject] : []),
    ...(monitor ? [monitor] : []),
    ...(rules ? [rules] : []),
  ];
}
