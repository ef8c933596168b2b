// The agent interface suite (test/support/agent-suite.ts) against the standalone server.
import { addOrganization } from '../support/embedded-admin.ts';
import { describeAgentSuite, OTHER_ORG, SUITE_CALLS_PER_MINUTE } from '../support/agent-suite.ts';
import { runCliJson, startServer, stopAndRemove, initializedDataDir } from '../support/standalone-server.ts';

describeAgentSuite('standalone', async () => {
  const dataDir = await initializedDataDir();
  // The default organization, then a second one (the product has no command for it).
  await runCliJson(['listprojects'], { ...process.env, ERRATA_DATA_DIR: dataDir });
  await addOrganization(dataDir, OTHER_ORG);
  const server = await startServer({ dataDir, env: { ERRATA_AGENT_RATE_LIMIT_PER_MINUTE: String(SUITE_CALLS_PER_MINUTE) } });
  return { url: server.url, baseUrl: server.url, env: server.env, stop: () => stopAndRemove(server) };
});
