// The Helm chart renders (`helm template`, helm built from the Go module proxy by kube-up.sh) and
// the API server accepts every rendered object (server-side dry run), the CRD included; the
// operator's RBAC covers what the reconciler does.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { PatchStrategy } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/standalone-server.ts';
import { applyCrd, clients, freshNamespace, rawApply } from '../support/kube-cluster.ts';
import { inject } from 'vitest';

const kube = clients();

function helm(args: string[]): string {
  return execFileSync(inject('kube').helm, args, { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the Helm chart', () => {
  it('renders, and the API server accepts every object it renders', async () => {
    await applyCrd(kube);
    const namespace = await freshNamespace(kube);
    const rendered = helm([
      'template',
      'errata',
      join('charts', 'errata'),
      '--namespace',
      namespace,
      '--include-crds',
      '--set',
      'image.repository=registry.example.com/errata',
    ]);
    const objects = parseAllDocuments(rendered)
      .map((d) => d.toJS())
      .filter(Boolean);
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ClusterRole',
      'ClusterRoleBinding',
      'CustomResourceDefinition',
      'Deployment',
      'Role',
      'RoleBinding',
      'Service',
      'ServiceAccount',
    ]);
    for (const object of objects) {
      if (object.kind === 'CustomResourceDefinition') {
        await rawApply(
          kube.config,
          `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${object.metadata.name}`,
          object,
          true,
        );
        continue;
      }
      if (!['ClusterRole', 'ClusterRoleBinding'].includes(object.kind)) object.metadata.namespace = namespace;
      await kube.objects.patch(object, undefined, 'All', 'errata-tests', true, PatchStrategy.ServerSideApply);
    }
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({
      image: 'registry.example.com/errata:0.1.0',
      args: ['operator'],
    });
  });

  it('refuses values its schema does not allow', () => {
    expect(() => helm(['template', 'errata', join('charts', 'errata'), '--set', 'replicas=0'])).toThrow(/replicas/);
    expect(() => helm(['template', 'errata', join('charts', 'errata'), '--set', 'colour=blue'])).toThrow(/colour/);
  });
});
