// Every MCP tool, in the order agents see them. /mcp serves exactly this list, and the agent
// manifest (/api/v1/agents) and the docs are generated from it, so they cannot drift apart.
import { bulkUpdateIssues } from './bulk-update-issues.ts';
import { checkResolution } from './check-resolution.ts';
import { createProject } from './create-project.ts';
import { getDsn } from './get-dsn.ts';
import { getIssueContext } from './get-issue-context.ts';
import { listIssues } from './list-issues.ts';
import { listProjects } from './list-projects.ts';
import { searchLogs } from './search-logs.ts';
import type { AgentTool } from './tool.ts';
import { updateIssue } from './update-issue.ts';
import { verifyInstallation } from './verify-installation.ts';
import { whatsNew } from './whats-new.ts';
import { whoami } from './whoami.ts';

export const AGENT_TOOLS: readonly AgentTool[] = [
  whoami,
  listProjects,
  listIssues,
  whatsNew,
  getIssueContext,
  checkResolution,
  updateIssue,
  bulkUpdateIssues,
  searchLogs,
  createProject,
  getDsn,
  verifyInstallation,
] as unknown as readonly AgentTool[];
