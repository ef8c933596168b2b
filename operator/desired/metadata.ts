// Names, labels and the owner reference every object the operator builds for an `Errata`
// carries, so that they can be found (labels), are deleted with it (owner reference) and say
// what they were built from (the spec hash annotation).
import { createHash } from 'node:crypto';
import { API_VERSION, KIND, type ErrataResource, type Role } from '../api/errata-resource.ts';

export const FIELD_MANAGER = 'errata-operator';
export const SPEC_HASH_ANNOTATION = 'errata.dev/spec-hash';
export const INSTANCE_LABEL = 'app.kubernetes.io/instance';
const COMPONENT_LABEL = 'app.kubernetes.io/component';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

export const HTTP_PORT = 8000;

/** `<resource>-<role>`, or the resource's own name for what the roles share. */
export function objectName(resource: ErrataResource, part?: Role | 'config' | `migrate-${string}`): string {
  return part ? `${resource.metadata.name}-${part}` : resource.metadata.name;
}

export function selectorLabels(resource: ErrataResource, component: string): Record<string, string> {
  return { 'app.kubernetes.io/name': 'errata', [INSTANCE_LABEL]: resource.metadata.name, [COMPONENT_LABEL]: component };
}

function labels(resource: ErrataResource, component: string): Record<string, string> {
  return {
    ...selectorLabels(resource, component),
    [MANAGED_BY_LABEL]: FIELD_MANAGER,
  };
}

function ownerReference(resource: ErrataResource) {
  return {
    apiVersion: API_VERSION,
    kind: KIND,
    name: resource.metadata.name,
    uid: resource.metadata.uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** A stable digest of what an object is built from: key order does not change it. */
export function specHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 16);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The metadata of an owned object: name, namespace, labels, owner, and the hash of the rest. */
export function ownedMetadata(
  resource: ErrataResource,
  name: string,
  component: string,
  body: unknown,
  extra: { annotations?: Record<string, string>; labels?: Record<string, string> } = {},
) {
  const metadata = {
    name,
    namespace: resource.metadata.namespace,
    labels: { ...labels(resource, component), ...extra.labels },
    annotations: { ...extra.annotations },
    ownerReferences: [ownerReference(resource)],
  };
  // The hash covers the metadata too: a changed label, annotation or owner is applied as well.
  metadata.annotations[SPEC_HASH_ANNOTATION] = specHash({ metadata, body });
  return metadata;
}
