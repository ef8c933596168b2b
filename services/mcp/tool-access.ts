// Who may call a tool: at least its role and, for create_project, an organization-wide token.
// One rule for both places it shows: tools/list lists a token only the tools it may call, and a
// call to any other (an agent may know a tool's name from the manifest) is refused with the
// `errata createtoken` command that mints a token that may.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { roleAtLeast } from '../core/auth/roles.ts';
import type { AgentToken } from '../core/ports/token-store.ts';
import { mintTokenCommand } from './tool-errors.ts';
import type { AgentTool, ToolContext } from './tool-kit/tool.ts';
import { AGENT_TOOLS } from './tool-registry.ts';

function mayCall(tool: AgentTool, token: AgentToken): boolean {
  return roleAtLeast(token.role, tool.minimumRole) && !(tool.organizationWideOnly && token.projectId !== null);
}

/** tools/list as the token sees it: the full catalogue stays in the agent manifest. */
export function visibleTools(tools: Tool[], token: AgentToken): Tool[] {
  const callable = new Set(AGENT_TOOLS.filter((tool) => mayCall(tool, token)).map((tool) => tool.name));
  return tools.filter((tool) => callable.has(tool.name));
}

/**
 * Why the token may not call the tool (its role, or its project scope), said with how to get one
 * that may; undefined when it may.
 */
export function refusalFor(tool: AgentTool, context: ToolContext): { by: 'role' | 'scope'; text: string } | undefined {
  const { token } = context;
  if (mayCall(tool, token)) return undefined;
  if (!roleAtLeast(token.role, tool.minimumRole)) {
    const mint = mintTokenCommand(
      tool.minimumRole,
      context.organization.slug,
      tool.organizationWideOnly ? null : token.projectSlug,
    );
    return {
      by: 'role',
      text: `${tool.name} needs a token with role ${tool.minimumRole} or higher; this token has role ${token.role}. An administrator mints one with: ${mint}`,
    };
  }
  // The role suffices: the tool is organization-wide only and the token is project-scoped.
  const mint = mintTokenCommand(tool.minimumRole, context.organization.slug, null);
  return {
    by: 'scope',
    text: `${tool.name} needs an organization-wide ${tool.minimumRole} token; this token is scoped to project ${token.projectSlug}. An administrator mints one with: ${mint}`,
  };
}
