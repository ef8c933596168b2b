// The answer to tools/list, rendered once per process. The SDK renders it anew on every request
// (the JSON Schema of twelve tools' zod inputs and outputs, ~35 KB), and /mcp builds a server per
// request; the tools never change while the process runs, so /mcp and the agent manifest serve
// this one rendering, made by the SDK itself and so what it would have answered, less the
// meaningless safe-integer bounds (published-schema.ts). It is the full catalogue: /mcp lists
// each token the part of it the token may call (tool-access.ts), the manifest all of it.
// The rendering (sdk-tool-list.ts) loads the MCP SDK, so it is imported on first use: a server
// nobody has asked for tools yet does not hold the SDK (docs/benchmarks.md).
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../runtime/logger.ts';

type ToolListRenderer = () => Promise<Tool[]>;

export class ToolList {
  private rendered: Promise<Tool[]> | undefined;

  constructor(private readonly render: ToolListRenderer) {}

  get(): Promise<Tool[]> {
    // A failed rendering is not kept: the next request tries again.
    this.rendered ??= this.render().catch((error: unknown) => {
      this.rendered = undefined;
      throw error;
    });
    return this.rendered;
  }
}

/** The process's one tool list, rendered by the SDK the first time it is asked for. */
export function processToolList(logger: Logger): ToolList {
  return new ToolList(async () => (await import('./sdk-tool-list.ts')).renderToolList(logger));
}
