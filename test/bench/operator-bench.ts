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
import { kubeUp, spawnOperator } from '../support/kube-env.ts';
import { metricTotal } from '../support/metrics.ts';
import { eventually } from '../support/standalone-server.ts';

const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 50);

const target = await kubeUp();
const kube = clients(testKubeConfig(target));
await applyCrd(kube);
const namespace = await freshNamespace(kube);
const dir = await mkdtemp(join(tmpdir(), 'errata-operator-bench-'));
const operator = await spawnOperator({ target, namespace, dir });
const until = (what: string, check: () => Promise<boolean>) =>
  eventually(async () => ((await check()) ? true : undefined), what, 10 * 60_000);
const metric = (name: string) => metricTotal(operator, name);

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
