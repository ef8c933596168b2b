// The Agent activity page (/organizations/{org}/settings/agent-activity), for owners and admins
// (the `agent_activity` capability): the organization's MCP tool calls, newest first, a page at a
// time, filtered by token, tool and issue through the address (a GET form), as recorded by the
// mcp role (mcp/call-recorder.ts). A filter the page cannot read is a 400 saying what it takes.
import { h } from 'preact';
import { UserInputError } from '../../core/errors.ts';
import { formatShortId, parseShortId } from '../../core/projects/short-id.ts';
import type { OrganizationRoute } from '../organization-page.ts';
import { AgentActivityPage, type ActivityFilters } from '../pages/agent-activity.tsx';

const PAGE_SIZE = 50;

export const agentActivityRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^settings\/agent-activity$/,
    async handle(page) {
      page.require('agent_activity');
      const filters = readFilters(page.ctx.query);
      const cursor = text(page.ctx.query.cursor);
      // A deleted project's slug may name a new project since: its short ids name the new one's
      // issues, and calls made before that project existed were about the deleted one's.
      const projects = await page.deps.metadata.listProjects(page.organization.id);
      const createdAt = new Map(projects.map((project) => [project.slug, project.createdAt]));
      const issueSlug = filters.issue && parseShortId(filters.issue)?.projectSlug;
      const [calls, tokens] = await Promise.all([
        page.deps.metadata.listAgentCalls({
          organizationId: page.organization.id,
          tokenId: filters.token,
          tool: filters.tool,
          issue: filters.issue,
          since: issueSlug ? createdAt.get(issueSlug) : undefined,
          limit: PAGE_SIZE,
          cursor: cursor || undefined,
        }),
        page.deps.metadata.listAgentTokens(page.organization.id),
      ]);
      page.send(
        200,
        h(AgentActivityPage, {
          assets: page.assets,
          csrf: page.csrf,
          viewer: page.viewer,
          organization: page.organization.slug,
          href: page.href,
          now: page.now(),
          calls,
          tokens,
          filters,
          firstPage: !cursor,
          canMintTokens: page.can('agent_tokens'),
          // A short id links to its issue only when the call was made in its project's lifetime.
          issueExisted: (shortId: string, at: Date) => {
            const since = createdAt.get(parseShortId(shortId)?.projectSlug ?? '');
            return since !== undefined && at >= since;
          },
        }),
      );
    },
  },
];

function readFilters(query: Record<string, string | string[] | undefined>): ActivityFilters {
  const token = text(query.token);
  const tool = text(query.tool);
  const issue = text(query.issue);
  const filters: ActivityFilters = {};
  if (token) {
    if (!/^\d{1,9}$/.test(token)) {
      throw new UserInputError('the token filter takes a token chosen from its list; clear it to see every token');
    }
    filters.token = Number(token);
  }
  if (tool) {
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(tool)) {
      throw new UserInputError('the tool filter takes a tool name such as update_issue (letters, digits and _); clear it to see every tool');
    }
    filters.tool = tool;
  }
  if (issue) {
    const parsed = parseShortId(issue);
    if (!parsed) throw new UserInputError('the issue filter takes a short id such as WEB-12; clear it to see every issue');
    filters.issue = formatShortId(parsed.projectSlug, parsed.number);
  }
  return filters;
}

/** A query value as one trimmed string (a repeated one counts as its first). */
function text(value: string | string[] | undefined): string {
  return (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
}
