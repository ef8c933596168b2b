import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { KubernetesObject } from '@kubernetes/client-node';
import { registerStatusMetrics } from './status-metrics.ts';

const errata = (name: string, status: unknown): KubernetesObject =>
  ({ apiVersion: 'errata.dev/v1alpha1', kind: 'Errata', metadata: { namespace: 'prod', name }, status }) as KubernetesObject;

describe('operator status metrics', () => {
  it('reports Ready and each role’s replicas from the cached status, and forgets deleted resources', async () => {
    let objects = [
      errata('up', {
        conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: 't' }],
        replicas: { ingest: { desired: 2, ready: 2 }, dispatcher: { desired: 1, ready: 0 } },
      }),
      errata('new', undefined),
    ];
    const registry = new Registry();
    registerStatusMetrics(registry, () => objects);
    const text = await registry.metrics();
    expect(text).toContain('errata_operator_resource_ready{namespace="prod",name="up"} 1');
    expect(text).toContain('errata_operator_resource_ready{namespace="prod",name="new"} 0');
    expect(text).toContain('errata_operator_role_replicas{namespace="prod",name="up",role="dispatcher",state="ready"} 0');
    expect(text).toContain('errata_operator_role_replicas{namespace="prod",name="up",role="ingest",state="desired"} 2');

    objects = [];
    const after = await registry.metrics();
    expect(after).not.toContain('name="up"');
  });
});
