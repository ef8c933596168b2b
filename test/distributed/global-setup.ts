// The distributed suites need the real servers: runs `test/infra/up.sh` (idempotent: it only
// installs and starts what is missing) and hands the ERRATA_* settings it wrote to the tests
// through vitest's provide/inject. Servers stay up afterwards; `npm run infra:down` stops them.
import type { TestProject } from 'vitest/node';
import { INFRA_UP, readInfraEnv } from '../support/infra-env-file.ts';
import { runProcess } from '../support/standalone-server.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    infraEnv: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const up = await runProcess('bash', [INFRA_UP], { timeoutMs: 40 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run infra:up failed (exit ${up.code}):\n${up.stderr}\n${up.stdout}`);
  project.provide('infraEnv', await readInfraEnv());
}
