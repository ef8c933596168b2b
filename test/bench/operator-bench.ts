// npm run bench:operator — the operator process (`errata operator` from dist/, as the image runs
// it) against the real kube-apiserver of the operator suite: how long it takes to bring up N
// Errata resources once their migrations finish, and to roll a spec change through all of them;
// reconcile passes and their mean time from its /metrics; its resident memory. Prints figures;
// asserts nothing.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  applyCrd,
  clients,
  createErrata,
  finishJob,
  freshNamespace,
  patchErrataSpec,
  sampleSpec,
  testKubeConfig,
} from '../support/kube-cluster.ts';
import { kubeUp, writeKubeconfig } from '../support/kube-env.ts';
import { freePort, spawnUntilHealthy } from '../support/standalone-server.ts';

const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 50);

const target = await kubeUp();
const kube = clients(testKubeConfig(target));
await applyCrd(kube);
const namespace = await freshNamespace(kube);
const dir = await mkdtemp(join(tmpdir(), 'errata-operator-bench-'));
const kubeconfig = join(dir, 'kubeconfig.yaml');
await writeKubeconfig(kubeconfig, target);
const port = await freePort();
const operator = await spawnUntilHealthy(
  ['operator'],
  {
    ...process.env,
    KUBECONFIG: kubeconfig,
    ERRATA_OPERATOR_NAMESPACE: namespace,
    ERRATA_PORT: String(port),
    ERRATA_LOG_LEVEL: 'warn',
  },
  `http://127.0.0.1:${port}`,
);

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
const metric = async (name: string) => {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(name))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
};

try {
  const spec = (replicas: number) => ({ ...sampleSpec(), dispatcher: { replicas } });
  const names = Array.from({ length: RESOURCES }, (_, i) => `bench-${i}`);
  let started = performance.now();
  for (const name of names) await createErrata(kube, namespace, name, spec(1));
  await until('every migration Job', async () => (await kube.batch.listNamespacedJob({ namespace })).items.length >= RESOURCES);
  const jobsAfter = performance.now() - started;
  for (const job of (await kube.batch.listNamespacedJob({ namespace })).items)
    await finishJob(kube, namespace, job.metadata!.name!, 'Complete');
  started = performance.now();
  await until(
    'every Deployment',
    async () => (await kube.apps.listNamespacedDeployment({ namespace })).items.length >= 3 * RESOURCES,
  );
  const deploymentsAfter = performance.now() - started;
  for (const name of names) await patchErrataSpec(kube, namespace, name, { dispatcher: { replicas: 3 } });
  started = performance.now();
  await until(
    'every dispatcher at 3',
    async () =>
      (await kube.apps.listNamespacedDeployment({ namespace })).items.filter(
        (d) => d.metadata!.name!.endsWith('-dispatcher') && d.spec!.replicas === 3,
      ).length >= RESOURCES,
  );
  const changeAfter = performance.now() - started;
  const passes = await metric('errata_operator_reconcile_total');
  const seconds = await metric('errata_operator_reconcile_duration_seconds_sum');
  const rss = await metric('errata_process_resident_memory_bytes');
  console.log(`${RESOURCES} Errata resources on kube-apiserver, one operator process`);
  console.log(`  created -> every migration Job applied   ${(jobsAfter / 1000).toFixed(1)} s`);
  console.log(`  Jobs finished -> all ${3 * RESOURCES} Deployments   ${(deploymentsAfter / 1000).toFixed(1)} s`);
  console.log(`  spec change on each -> all rolled        ${(changeAfter / 1000).toFixed(1)} s`);
  console.log(`  reconcile passes ${passes}, mean ${((seconds / passes) * 1000).toFixed(1)} ms`);
  console.log(`  operator RSS ${(rss / 1024 / 1024).toFixed(0)} MB`);
} finally {
  await operator.stop();
  await kube.core.deleteNamespace({ name: namespace });
  await rm(dir, { recursive: true, force: true });
}
