// What the Dockerfile's final stage holds, assembled without a Docker engine (there is none on
// these machines): the same files (package.json, the lock, bin/, dist/) and the same production
// install (`npm install --omit=dev --ignore-scripts`); then the CLI and the operator run from it,
// the operator against the test API server. A runtime import of a dev dependency fails here.
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually, REPO_ROOT, runProcess } from '../support/standalone-server.ts';
import { parse } from 'yaml';
import {
  applyCrd,
  applyPrometheusRuleCrd,
  clients,
  createErrata,
  finishJob,
  freshNamespace,
  sampleSpec,
} from '../support/kube-cluster.ts';
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

/**
 * Whether Docker leaves `path` out of the build context under these .dockerignore patterns: the
 * last pattern that matches the path or one of its parent directories decides, `!` re-includes.
 * Only what this repository's file uses: plain paths and `*` within one path segment.
 */
function excludedFromContext(path: string, patterns: string[]): boolean {
  let excluded = false;
  for (const line of patterns) {
    const negated = line.startsWith('!');
    const pattern = negated ? line.slice(1) : line;
    const regex = new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/.*)?$`);
    if (regex.test(path)) excluded = !negated;
  }
  return excluded;
}

describe('the build context', () => {
  it('holds every file the Dockerfile copies from it (.dockerignore leaves none of them out)', async () => {
    const patterns = (await readFile(join(REPO_ROOT, '.dockerignore'), 'utf8'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const dockerfile = await readFile(join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const sources = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1]!.split(/\s+/));
    expect(sources).toContain('charts/errata/monitoring/errata-rules.yaml');
    expect(sources.filter((source) => excludedFromContext(source, patterns))).toEqual([]);
    // The matcher itself: what the file excludes stays excluded.
    expect(excludedFromContext('test/operator/image.test.ts', patterns)).toBe(true);
    expect(excludedFromContext('charts/errata/values.yaml', patterns)).toBe(true);
  });
});

describe('the image contents', () => {
  it('run the CLI with production dependencies only', async () => {
    const help = await runProcess(process.execPath, [join(image, 'bin', 'errata.js'), '--help'], { cwd: image });
    expect(help.code, help.stderr).toBe(0);
    for (const command of ['start', 'serve', 'migrate', 'operator']) expect(help.stdout).toContain(command);
  });

  it('run the operator, which takes the lease, answers /healthz, and makes the PrometheusRule from the rules in dist/', async () => {
    const kube = clients();
    // The operator watches Errata resources; their CRD must exist whichever test file ran first.
    await applyCrd(kube);
    await applyPrometheusRuleCrd(kube);
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
      expect(metrics).toMatch(/errata_build_info\{version="[^"]+",role="operator"\} 1/);
      // The bundle reads the rules the build copied beside it (dist/monitoring/), as the image holds them.
      await createErrata(kube, namespace, 'imaged', { ...sampleSpec(), monitoring: { prometheusRule: true } });
      const job = await eventually(async () => (await kube.batch.listNamespacedJob({ namespace })).items[0], 'the migration Job');
      await finishJob(kube, namespace, job.metadata!.name!, 'Complete');
      const rule = await eventually(
        async () => (await kube.objects.list('monitoring.coreos.com/v1', 'PrometheusRule', namespace)).items[0] as any,
        'the PrometheusRule',
      );
      const shipped = parse(await readFile(join(REPO_ROOT, 'charts', 'errata', 'monitoring', 'errata-rules.yaml'), 'utf8'));
      expect(rule.spec).toEqual(shipped);
    } finally {
      expect(await operator.stop()).toBe(0);
    }
  });
});
