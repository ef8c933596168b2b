// The operator suite needs a real API server: runs `test/infra/kube-up.sh` (idempotent: builds
// etcd and kube-apiserver from the Go module proxy once, into a cache outside the repository,
// and starts them if they are not running), then hands their address and token to the tests.
// They stay up afterwards; `npm run kube:down` stops them.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT, runProcess } from '../support/standalone-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kube: { url: string; token: string; helm: string };
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const up = await runProcess('bash', [join(REPO_ROOT, 'test', 'infra', 'kube-up.sh')], { timeoutMs: 60 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run kube:up failed (exit ${up.code}):\n${up.stderr}\n${up.stdout}`);
  const env = Object.fromEntries(
    (await readFile(join(REPO_ROOT, '.errata-kube.env'), 'utf8'))
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  project.provide('kube', { url: env.ERRATA_KUBE_URL!, token: env.ERRATA_KUBE_TOKEN!, helm: env.ERRATA_HELM! });
}
