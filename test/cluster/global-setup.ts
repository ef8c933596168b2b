// The cluster suite needs a real single-node cluster and the backing servers: runs
// `test/infra/cluster-up.sh` (idempotent: it runs infra:up, builds the cluster's binaries once
// into a cache outside the repository, builds Errata's image from dist/ and starts what is not
// running), then hands the cluster's settings and the servers' to the tests. Everything stays up
// afterwards; `npm run cluster:down` and `npm run infra:down` stop it.
import type { TestProject } from 'vitest/node';
import { clusterUp, type ClusterTarget } from '../support/cluster-env.ts';
import { readInfraEnv } from '../support/infra-env-file.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterTarget;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  project.provide('cluster', await clusterUp());
  project.provide('infraEnv', await readInfraEnv());
}
