// The tool catalog of the agent manifest and /llms.txt: the process's one rendering of tools/list
// (services/mcp/tool-list.ts), every tool, exactly as /mcp lists it to a token that may call it,
// plus each tool's least role. /mcp lists a token only the tools it may call; this lists them all.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { ToolList } from '../tool-list.ts';
import { AGENT_TOOLS } from '../tool-registry.ts';

export interface CatalogEntry {
  name: string;
  title: string | undefined;
  description: string | undefined;
  minimumRole: string;
  organizationWideOnly: boolean;
  annotations: Tool['annotations'];
  inputSchema: Tool['inputSchema'];
}

export async function toolCatalog(toolList: ToolList): Promise<CatalogEntry[]> {
  return (await toolList.get()).map((tool) => {
    const definition = AGENT_TOOLS.find((t) => t.name === tool.name)!;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      minimumRole: definition.minimumRole,
      organizationWideOnly: definition.organizationWideOnly === true,
      annotations: tool.annotations,
      inputSchema: tool.inputSchema,
    };
  });
}
