// The operator's only door to the API server, over @kubernetes/client-node: read the Errata and
// what it owns, apply desired objects with server-side apply under one field manager, delete
// what is no longer desired, and write the status subresource.
import {
  ApiextensionsV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { GROUP, PLURAL, VERSION, type ErrataStatus } from '../api/errata-resource.ts';
import { FIELD_MANAGER, INSTANCE_LABEL, MANAGED_BY_LABEL } from '../desired/metadata.ts';

export interface LiveObject extends KubernetesObject {
  metadata: NonNullable<KubernetesObject['metadata']> & { name: string; namespace?: string };
  spec?: any;
  status?: any;
}

/**
 * What the API server said about a refused request, in words that are the same on every try:
 * the client's message ends with the response headers, whose audit id differs each time, so a
 * status carrying it changed on every pass, and each write of it started the next pass at once.
 */
export function apiFailure(error: unknown): string {
  const { code, body } = (error ?? {}) as { code?: unknown; body?: unknown };
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
  }
  const said = (parsed as { message?: unknown } | undefined)?.message;
  if (typeof said === 'string') return `${typeof code === 'number' ? `HTTP ${code}: ` : ''}${said}`.slice(0, 500);
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\nHeaders:')[0]!.slice(0, 500);
}

/** The API versions of the kinds the operator owns or watches. */
const API_VERSIONS: Record<string, string> = {
  ConfigMap: 'v1',
  Service: 'v1',
  Deployment: 'apps/v1',
  Job: 'batch/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2',
  PodDisruptionBudget: 'policy/v1',
  Ingress: 'networking.k8s.io/v1',
  ServiceMonitor: 'monitoring.coreos.com/v1',
  PrometheusRule: 'monitoring.coreos.com/v1',
};

export function isNotFound(error: unknown): boolean {
  return (error as { code?: number }).code === 404;
}

export class Kube {
  private readonly objects: KubernetesObjectApi;
  private readonly custom: CustomObjectsApi;
  private readonly extensions: ApiextensionsV1Api;

  constructor(readonly config: KubeConfig) {
    this.objects = KubernetesObjectApi.makeApiClient(config);
    this.custom = config.makeApiClient(CustomObjectsApi);
    this.extensions = config.makeApiClient(ApiextensionsV1Api);
  }

  async getErrata(namespace: string, name: string): Promise<LiveObject | undefined> {
    try {
      return (await this.custom.getNamespacedCustomObject({
        group: GROUP,
        version: VERSION,
        namespace,
        plural: PLURAL,
        name,
      })) as LiveObject;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async writeStatus(namespace: string, name: string, status: ErrataStatus): Promise<void> {
    await this.custom.patchNamespacedCustomObjectStatus(
      { group: GROUP, version: VERSION, namespace, plural: PLURAL, name, body: { status }, fieldManager: FIELD_MANAGER },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }

  async get(kind: string, namespace: string, name: string): Promise<LiveObject | undefined> {
    try {
      return (await this.objects.read({ apiVersion: API_VERSIONS[kind]!, kind, metadata: { name, namespace } })) as LiveObject;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /** Server-side apply, taking ownership of every field it sets (the operator is the one writer). */
  async apply(object: KubernetesObject, fieldManager = FIELD_MANAGER): Promise<void> {
    await this.objects.patch(object, undefined, undefined, fieldManager, true, PatchStrategy.ServerSideApply);
  }

  /** Objects of a kind this operator made for one Errata; none when the kind is not served. */
  async listOwned(kind: string, namespace: string, instance: string): Promise<LiveObject[]> {
    const selector = `${MANAGED_BY_LABEL}=${FIELD_MANAGER},${INSTANCE_LABEL}=${instance}`;
    try {
      const list = await this.objects.list(
        API_VERSIONS[kind]!,
        kind,
        namespace,
        undefined,
        undefined,
        undefined,
        undefined,
        selector,
      );
      // Items of a list carry no kind of their own; deleting one needs it.
      return list.items.map((item) => ({ ...item, apiVersion: API_VERSIONS[kind]!, kind }) as LiveObject);
    } catch (error) {
      if (isNotFound(error)) return [];
      throw error;
    }
  }

  async delete(object: LiveObject): Promise<void> {
    try {
      await this.objects.delete(object, undefined, undefined, undefined, undefined, 'Background');
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }

  async crdInstalled(name: string): Promise<boolean> {
    try {
      await this.extensions.readCustomResourceDefinition({ name });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }
}
