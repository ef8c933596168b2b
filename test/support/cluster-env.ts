// The real single-node cluster of the cluster suite, as `npm run cluster:up` wrote it to
// .errata-cluster.env, and what the suite does to its pods from the host: reach them by IP
// (no kube-proxy runs, so Service addresses do not route) and run a command in a container
// through containerd (`ctr tasks exec`), where kubectl exec would go through the kubelet.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { parseEnvFile } from './infra-env-file.ts';
import { REPO_ROOT, runProcess, type CommandResult } from './standalone-server.ts';

export interface ClusterTarget {
  url: string;
  token: string;
  /** Errata's image as cluster:up built it from dist/, e.g. errata.test/errata:0.1.0. */
  image: string;
  /** Where pods reach the backing servers (the bridge's gateway address). */
  gateway: string;
  /** `ctr` and its arguments for containerd's Kubernetes namespace. */
  ctr: string[];
  helm: string;
}

/** Runs cluster-up.sh (idempotent; it runs infra:up too) and reads what it wrote. */
export async function clusterUp(): Promise<ClusterTarget> {
  const up = await runProcess('bash', [join(REPO_ROOT, 'test', 'infra', 'cluster-up.sh')], { timeoutMs: 60 * 60_000 });
  if (up.code !== 0) throw new Error(`npm run cluster:up failed (exit ${up.code}):\n${up.stderr}\n${up.stdout}`);
  const env = parseEnvFile(await readFile(join(REPO_ROOT, '.errata-cluster.env'), 'utf8'));
  return {
    url: env.ERRATA_CLUSTER_URL!,
    token: env.ERRATA_CLUSTER_TOKEN!,
    image: env.ERRATA_CLUSTER_IMAGE!,
    gateway: env.ERRATA_CLUSTER_GATEWAY!,
    ctr: env.ERRATA_CLUSTER_CTR!.split(' '),
    helm: env.ERRATA_CLUSTER_HELM!,
  };
}

/** The containerd id of a pod's container (Errata's pods have one). */
function containerId(pod: V1Pod): string {
  const id = pod.status?.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, '');
  if (!id) throw new Error(`pod ${pod.metadata?.name} has no running container`);
  return id;
}

/** Runs a command in a pod's container, as its own user and with its own environment. */
export function execInPod(cluster: ClusterTarget, pod: V1Pod, command: string[]): Promise<CommandResult> {
  const [ctr, ...args] = cluster.ctr;
  return runProcess(
    ctr!,
    [...args, 'tasks', 'exec', '--exec-id', `test-${randomBytes(4).toString('hex')}`, containerId(pod), ...command],
    {
      timeoutMs: 120_000,
    },
  );
}

/** containerd's record of a pod's container: the OCI spec it runs with (user, root filesystem). */
export async function containerSpec(cluster: ClusterTarget, pod: V1Pod): Promise<any> {
  const [ctr, ...args] = cluster.ctr;
  const info = await runProcess(ctr!, [...args, 'containers', 'info', containerId(pod)], { timeoutMs: 30_000 });
  if (info.code !== 0) throw new Error(`ctr containers info failed: ${info.stderr}`);
  return (JSON.parse(info.stdout) as { Spec: unknown }).Spec;
}
