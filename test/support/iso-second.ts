// Times as the MCP tools write them: ISO 8601 to the second (services/mcp/tool-kit/iso-time.ts),
// written apart from it so a test does not check the code with itself.
export function isoSecond(time: number | Date): string {
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
