// The test API server's address and token, as `npm run kube:up` wrote them to .errata-kube.env,
// a kubeconfig file for processes started against it (KUBECONFIG), and the operator process.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEnvFile } from './infra-env-file.ts';
import { freePort, REPO_ROOT, runProcess, spawnUntilHealthy, type ServerProcess } from './standalone-server.ts';

export interface KubeTarget {
  url: string;
  token: string;
  helm: string;
}

/** Runs kube-up.sh (idempotent) and reads what it wrote. */
export async function kubeUp(): Promise<KubeTarget> {
  const up = await runProcess('bash', [join(REPO_ROOT, 'test', 'infra', 'kube-up.sh')], { timeoutMs: 60 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run kube:up failed (exit ${up.code}):\n${up.stderr}\n${up.stdout}`);
  const env = parseEnvFile(await readFile(join(REPO_ROOT, '.errata-kube.env'), 'utf8'));
  return { url: env.ERRATA_KUBE_URL!, token: env.ERRATA_KUBE_TOKEN!, helm: env.ERRATA_HELM! };
}

async function writeKubeconfig(path: string, target: { url: string; token: string }): Promise<void> {
  await writeFile(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'test', cluster: { server: target.url, 'insecure-skip-tls-verify': true } }],
      users: [{ name: 'test', user: { token: target.token } }],
      contexts: [{ name: 'test', context: { cluster: 'test', user: 'test' } }],
      'current-context': 'test',
    }),
  );
}

/**
 * `errata operator` as a process against the test API server (KUBECONFIG written into `dir`),
 * its lease in `namespace`; from the repository's bin/, or the given one. Resolves once its
 * /healthz answers.
 */
export async function spawnOperator(options: {
  target: { url: string; token: string };
  namespace: string;
  dir: string;
  bin?: string;
}): Promise<ServerProcess & { url: string }> {
  const kubeconfig = join(options.dir, 'kubeconfig.yaml');
  await writeKubeconfig(kubeconfig, options.target);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    KUBECONFIG: kubeconfig,
    ERRATA_OPERATOR_NAMESPACE: options.namespace,
    ERRATA_HOST: '127.0.0.1',
    ERRATA_PORT: String(port),
    ERRATA_LOG_LEVEL: 'warn',
  };
  return { url, ...(await spawnUntilHealthy(['operator'], env, url, { bin: options.bin })) };
}
