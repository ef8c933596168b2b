import { describe, expect, it } from 'vitest';
import { mcpClientConfiguration } from './mcp-client-configuration.ts';

describe('mcpClientConfiguration', () => {
  const config = mcpClientConfiguration('https://errors.example.com', 'errata_agent_abc');

  it('puts the plaintext only in the export line', () => {
    expect(config.export).toBe('export ERRATA_TOKEN=errata_agent_abc');
    expect(config.command).not.toContain('errata_agent_abc');
    expect(config.mcpJson).not.toContain('errata_agent_abc');
  });

  it('names the variable in the Claude Code command and the .mcp.json', () => {
    expect(config.environmentVariable).toBe('ERRATA_TOKEN');
    expect(config.command).toBe(
      'claude mcp add --transport http errata https://errors.example.com/mcp --header "Authorization: Bearer $ERRATA_TOKEN"',
    );
    expect(JSON.parse(config.mcpJson)).toEqual({
      mcpServers: {
        errata: { type: 'http', url: 'https://errors.example.com/mcp', headers: { Authorization: 'Bearer ${ERRATA_TOKEN}' } },
      },
    });
  });
});
