// The agent interface end to end, written once and run against the standalone server and the
// distributed roles alike: the real MCP client on /mcp, events and logs sent by the real
// @sentry/node (and the install guides' own snippets, run with Node and Python), tokens made
// with the real CLI. Covers every tool, the role x scope matrix, two organizations, revocation,
// rate limiting, delete confirmations, the lifecycle, the untrusted-data envelope and the
// bootstrap documents, one part per file under agent-suite/. Each tool is also tested on its
// own, in about a second, beside it (services/mcp/tools/<tool>.test.ts).
import { afterAll, beforeAll, describe } from 'vitest';
import { describeBootstrapDocuments } from './agent-suite/bootstrap-documents.ts';
import { describeIssueLifecycle } from './agent-suite/issue-lifecycle.ts';
import { describeRolesScopesAndOrganizations } from './agent-suite/roles-scopes-organizations.ts';
import { describeStrictInputs } from './agent-suite/strict-inputs.ts';
import { AgentSuite, type AgentTarget } from './agent-suite/suite.ts';
import { describeTools } from './agent-suite/tools.ts';
import { describeTransportAndAuthentication } from './agent-suite/transport-and-authentication.ts';
import { describeUntrustedData } from './agent-suite/untrusted-data.ts';

export { OTHER_ORG, SUITE_CALLS_PER_MINUTE } from './agent-suite/suite.ts';

export function describeAgentSuite(name: string, start: () => Promise<AgentTarget>): void {
  describe(`agent interface (${name})`, () => {
    const suite = new AgentSuite();
    beforeAll(() => suite.provision(start), 180_000);
    afterAll(() => suite.close());

    describeTransportAndAuthentication(suite);
    describeTools(suite);
    describeIssueLifecycle(suite);
    describeStrictInputs(suite);
    describeRolesScopesAndOrganizations(suite);
    describeUntrustedData(suite);
    describeBootstrapDocuments(suite);
  });
}
