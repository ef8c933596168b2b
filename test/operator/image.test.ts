// What the Dockerfile's final stage holds, assembled without a Docker engine (there is none on
// these machines): the same files (package.json, the lock, bin/, dist/) and the same production
// install (`npm install --omit=dev --ignore-scripts`); then the CLI and the operator run from it,
// the operator against the test API server. A runtime import of a dev dependency fails here.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually, REPO_ROOT, runProcess } from '../support/standalone-server.ts';
import { applyCrd, clients, freshNamespace } from '../support/kube-cluster.ts';
import { spawnOperator } from '../support/kube-env.ts';

let image: string;

beforeAll(async () => {
  image = await mkdtemp(join(tmpdir(), 'errata-image-'));
  // The COPY lines of the Dockerfile's final stage.
  const dockerfile = await readFile(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  expect(finalStage).toMatch(/COPY package\.json package-lock\.json \.\//);
  expect(finalStage).toMatch(/COPY bin \.\/bin/);
  expect(finalStage).toMatch(/COPY --from=build \/app\/dist \.\/dist/);
  for (const file of ['package.json', 'package-lock.json']) await cp(join(REPO_ROOT, file), join(image, file));
  await cp(join(REPO_ROOT, 'bin'), join(image, 'bin'), { recursive: true });
  await cp(join(REPO_ROOT, 'dist'), join(image, 'dist'), { recursive: true });
  const install = await runProcess('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: image,
    timeoutMs: 15 * 60_000,
  });
  expect(install.code, install.stderr).toBe(0);
}, 20 * 60_000);
afterAll(() => rm(image, { recursive: true, force: true }));

describe('the image contents', () => {
  it('run the CLI with production dependencies only', async () => {
    const help = await runProcess(process.execPath, [join(image, 'bin', 'errata.js'), '--help'], { cwd: image });
    expect(help.code, help.stderr).toBe(0);
    for (const command of ['start', 'serve', 'migrate', 'operator']) expect(help.stdout).toContain(command);
  });

  it('run the operator, which takes the lease and answers /healthz', async () => {
    const kube = clients();
    // The operator watches Errata resources; their CRD must exist whichever test file ran first.
    await applyCrd(kube);
    const namespace = await freshNamespace(kube);
    const operator = await spawnOperator({ target: inject('kube'), namespace, dir: image, bin: join(image, 'bin', 'errata.js') });
    try {
      const lease = await eventually(async () => {
        const leases = await kube.objects.list('coordination.k8s.io/v1', 'Lease', namespace);
        return leases.items.find((l) => l.metadata!.name === 'errata-operator');
      }, 'the operator lease');
      expect((lease as { spec?: { holderIdentity?: string } }).spec?.holderIdentity).toBeTruthy();
      const metrics = await (await fetch(`${operator.url}/metrics`)).text();
      expect(metrics).toContain('errata_operator_reconcile_total');
    } finally {
      expect(await operator.stop()).toBe(0);
    }
  });
});
