// Every MCP tool, in the order agents see them. /mcp serves exactly this list, and the agent
// manifest (/api/v1/agents) and the docs are generated from it, so they cannot drift apart.
import type { AgentTool } from './tool-kit/tool.ts';
import { bulkUpdateIssues } from './tools/bulk-update-issues.ts';
import { checkResolution } from './tools/check-resolution.ts';
import { createProject } from './tools/create-project.ts';
import { getDsn } from './tools/get-dsn.ts';
import { getIssueContext } from './tools/get-issue-context.ts';
import { listIssues } from './tools/list-issues.ts';
import { listProjects } from './tools/list-projects.ts';
import { searchLogs } from './tools/search-logs.ts';
import { updateIssue } from './tools/update-issue.ts';
import { verifyInstallation } from './tools/verify-installation.ts';
import { whatsNew } from './tools/whats-new.ts';
import { whoami } from './tools/whoami.ts';

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
