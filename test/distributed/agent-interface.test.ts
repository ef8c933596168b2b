// The agent interface suite (test/support/agent-suite.ts) against the distributed roles: /mcp
// in the mcp process, events through ingest, Kafka and the dispatchers into ClickHouse.
import { PgPoolClient } from '../../services/adapters/postgres/pg-pool-client.ts';
import { PgMetadataStore } from '../../services/adapters/postgres/pg-metadata-store.ts';
import { describeAgentSuite, OTHER_ORG, SUITE_CALLS_PER_MINUTE } from '../support/agent-suite.ts';
import { createCluster } from '../support/distributed-cluster.ts';
import { infraEnv } from '../support/infra-env.ts';

describeAgentSuite('distributed', async () => {
  const cluster = await createCluster({
    infra: infraEnv(),
    env: { ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: String(SUITE_CALLS_PER_MINUTE) },
  });
  await cluster.startIngest(0);
  await cluster.startIngest(1);
  await cluster.start('dispatcher');
  const mcp = await cluster.start('mcp');
  // The mcp role made the default organization; the second one is written
  // through the real MetadataStore (the product has no command for it).
  const db = PgPoolClient.open({ url: cluster.env.ERRATA_POSTGRES_URL! });
  try {
    const metadata = new PgMetadataStore(db);
    await metadata.ensureOrganization(OTHER_ORG, OTHER_ORG);
  } finally {
    await db.close();
  }
  return {
    url: mcp.url,
    baseUrl: cluster.ingest.url,
    env: cluster.env,
    async stop() {
      const { exitCodes } = await cluster.destroy();
      if (exitCodes.some((code) => code !== 0)) throw new Error(`a role did not exit 0 on SIGTERM: ${exitCodes.join(', ')}`);
    },
  };
});
