// The one place that turns an error into an MCP tool result: our typed errors keep their
// message (it says what was wrong and how to fix it); anything else is logged and reported as
// an internal error without its text, since driver messages are not for clients.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrataError } from '../core/errors.ts';
import type { Role } from '../core/auth/roles.ts';
import type { Logger } from '../runtime/logger.ts';

export function toolError(error: unknown, tool: string, logger: Logger): CallToolResult {
  if (error instanceof ErrataError && error.code !== 'unavailable') return errorResult(`${error.code}: ${error.message}`);
  if (error instanceof ErrataError) {
    logger.warn({ err: error.cause ?? error, tool }, 'tool call hit an unavailable store');
    return errorResult(`unavailable: ${error.message}; retry in a few seconds`);
  }
  logger.error({ err: error, tool }, 'tool call failed');
  return errorResult('internal_error: the call failed on the server; it was logged. Retry, or report it if it persists.');
}

export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/**
 * The command an administrator runs to mint a token that may do what was refused: the role
 * asked for, in the same scope (the project, or none for organization-wide work), so the
 * refusal names the next step instead of only the rule.
 */
export function mintTokenCommand(role: Role, organization: string, project: string | null): string {
  return `errata createtoken --role ${role}${project ? ` --project ${project}` : ''} --organization ${organization}`;
}
