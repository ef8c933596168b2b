// The tool catalog of the agent manifest, read from a real MCP server built exactly as /mcp
// builds one (over an in-memory transport), so names, descriptions and input schemas are
// byte-for-byte what tools/list answers. Built once per process.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../runtime/logger.ts';
import { VERSION } from '../../runtime/version.ts';
import { createMcpServer } from '../mcp-server.ts';
import { AGENT_TOOLS } from '../tools/registry.ts';

export interface CatalogEntry {
  name: string;
  title: string | undefined;
  description: string | undefined;
  minimumRole: string;
  organizationWideOnly: boolean;
  annotations: Tool['annotations'];
  inputSchema: Tool['inputSchema'];
}

let catalog: Promise<CatalogEntry[]> | undefined;

export function toolCatalog(logger: Logger): Promise<CatalogEntry[]> {
  catalog ??= listTools(logger).catch((error: unknown) => {
    catalog = undefined;
    throw error;
  });
  return catalog;
}

async function listTools(logger: Logger): Promise<CatalogEntry[]> {
  const server = createMcpServer(() => {
    throw new Error('the catalog server runs no tools');
  }, logger);
  const client = new Client({ name: 'errata-manifest', version: VERSION });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  try {
    const { tools } = await client.listTools();
    return tools.map((tool) => {
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
  } finally {
    await client.close();
    await server.close();
  }
}
