// The test API server's address and token, as `npm run kube:up` wrote them to .errata-kube.env,
// and a kubeconfig file for processes started against it (KUBECONFIG).
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, runProcess } from './standalone-server.ts';

export interface KubeTarget {
  url: string;
  token: string;
  helm: string;
}

/** Runs kube-up.sh (idempotent) and reads what it wrote. */
export async function kubeUp(): Promise<KubeTarget> {
  const up = await runProcess('bash', [join(REPO_ROOT, 'test', 'infra', 'kube-up.sh')], { timeoutMs: 60 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run kube:up failed (exit ${up.code}):\n${up.stderr}\n${up.stdout}`);
  const env = Object.fromEntries(
    (await readFile(join(REPO_ROOT, '.errata-kube.env'), 'utf8'))
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
  return { url: env.ERRATA_KUBE_URL!, token: env.ERRATA_KUBE_TOKEN!, helm: env.ERRATA_HELM! };
}

export async function writeKubeconfig(path: string, target: { url: string; token: string }): Promise<void> {
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
