// The operator suite needs a real API server: runs `test/infra/kube-up.sh` (idempotent: builds
// etcd, kube-apiserver and helm from the Go module proxy once, into a cache outside the
// repository, and starts the servers if they are not running), then hands their address, token
// and helm's path to the tests. They stay up afterwards; `npm run kube:down` stops them.
import type { TestProject } from 'vitest/node';
import { kubeUp, type KubeTarget } from '../support/kube-env.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kube: KubeTarget;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('kube', await kubeUp());
}
