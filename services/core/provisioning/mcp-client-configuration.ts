// What `errata createtoken` tells a person to paste into an MCP client. The plaintext appears
// only in the `export` line, meant for a shell profile or a secret store; the command and the
// `.mcp.json` name the variable instead, so the file can be committed to a repository. Claude
// Code expands `${VAR}` in a .mcp.json's url and headers (and command, args, env) when it loads
// the file; the shell expands `$ERRATA_TOKEN` in the command when it runs.

/** The name the agents manifest and the setup skill use too (services/mcp/bootstrap). */
const TOKEN_VARIABLE = 'ERRATA_TOKEN';

interface McpClientConfiguration {
  environmentVariable: string;
  /** The one line holding the plaintext. */
  export: string;
  /** Claude Code's command; run it where the variable is set. */
  command: string;
  /** A per-repository `.mcp.json`, free of the secret. */
  mcpJson: string;
}

export function mcpClientConfiguration(baseUrl: string, plaintext: string): McpClientConfiguration {
  const url = `${baseUrl}/mcp`;
  return {
    environmentVariable: TOKEN_VARIABLE,
    export: `export ${TOKEN_VARIABLE}=${plaintext}`,
    command: `claude mcp add --transport http errata ${url} --header "Authorization: Bearer $${TOKEN_VARIABLE}"`,
    mcpJson: JSON.stringify(
      { mcpServers: { errata: { type: 'http', url, headers: { Authorization: `Bearer \${${TOKEN_VARIABLE}}` } } } },
      null,
      2,
    ),
  };
}
