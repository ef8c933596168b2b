// GET /llms.txt: what this instance is and where an agent finds the rest, in the llms.txt form.
import { SKILL_NAMES, skillUrl } from './skills.ts';
import type { CatalogEntry } from './tool-catalog.ts';

export function llmsTxt(baseUrl: string, tools: CatalogEntry[]): string {
  return [
    '# Errata',
    '',
    '> Self-hostable, Sentry-SDK-compatible error tracking and structured logs, first-class for AI agents. Point any Sentry SDK',
    '> (browser JS, Node, Python, Go, PHP, Ruby) at a project DSN; errors are grouped into issues and logs become searchable.',
    '',
    'Agents are never metered and never gated: the whole MCP surface is in every edition and plan, free of charge.',
    'Pricing: Errata is open source and self-hosted; there is no paid tier for agents.',
    '',
    '## For agents',
    '',
    `- [Agent manifest](${baseUrl}/api/v1/agents): authentication, roles, first calls and the tool catalog (JSON)`,
    `- MCP server: ${baseUrl}/mcp (Streamable HTTP; header \`Authorization: Bearer errata_agent_...\` from \`errata createtoken\`)`,
    ...SKILL_NAMES.map((name) => `- [${name} skill](${skillUrl(baseUrl, name)})`),
    `- Install guides: ${baseUrl}/api/v1/organizations/{organization}/projects/{project}/install/{node|python|browser}.md`,
    '',
    '## Tools',
    '',
    "Each with its least role. /mcp's tools/list shows a token only the tools it may call.",
    '',
    ...tools.map((tool) => `- \`${tool.name}\` (${tool.minimumRole}): ${tool.title ?? tool.name}`),
    '',
  ].join('\n');
}
