// `errata operator` as a process: the kubeconfig (in the cluster, its service account; outside,
// KUBECONFIG), the lease namespace (ERRATA_OPERATOR_NAMESPACE, set from the pod's namespace by
// the Helm chart) and the listen address of /healthz and /metrics (ERRATA_HOST, ERRATA_PORT).
import { KubeConfig } from '@kubernetes/client-node';
import type { Config } from '../services/runtime/config.ts';
import type { Logger } from '../services/runtime/logger.ts';
import { startOperator } from './operator.ts';

export async function startOperatorProcess(config: Config, logger: Logger) {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  const running = await startOperator({
    kubeConfig,
    logger,
    leaseNamespace: config.operatorNamespace,
    host: config.host,
    port: config.port,
    http: config.http,
  });
  logger.info({ listen: running.url, server: kubeConfig.getCurrentCluster()?.server }, 'errata operator started');
  return running;
}
