// whoami: who this token is and what it may do, so an agent learns its limits without
// provoking a refusal.
import { z } from 'zod';
import { ROLE_GRANTS, ROLES } from '../../core/auth/roles.ts';
import { isoSeconds } from '../tool-kit/iso-time.ts';
import { defineTool } from '../tool-kit/tool.ts';
import { asciiJson } from '../../core/agent/untrusted-envelope.ts';

export const whoami = defineTool({
  name: 'whoami',
  title: 'Who am I',
  description: 'The calling token: its name, role, scope (organization-wide or one project), organization and rate-limit state.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {},
  outputSchema: {
    tokenName: z.string(),
    role: z.enum(ROLES),
    grants: z.string().describe('what the role allows'),
    scope: z.object({ type: z.enum(['organization', 'project']), project: z.string().nullable() }),
    organization: z.string(),
    rateLimit: z.object({
      limit: z
        .number()
        .int()
        .describe('JSON-RPC messages per minute: tool calls, tools/list, initialize; each message of a batch'),
      remaining: z.number().int(),
      resetAt: z.string().describe('ISO 8601, to the second: when remaining goes back to limit'),
      resetInSeconds: z.number().int(),
    }),
  },
  async run(_input, context) {
    const { token } = context;
    const now = context.now().getTime();
    const limit = context.limiter.peek(token.id, now);
    const scope = token.projectSlug
      ? { type: 'project' as const, project: token.projectSlug }
      : { type: 'organization' as const, project: null };
    return {
      // The name as the facts write it (escaped): a name holding "</untrusted-data>" drew the marker.
      summary: `Token ${asciiJson(token.name)}: role ${token.role}, ${scope.project ? `project ${scope.project}` : 'organization-wide'} in ${context.organization.slug}; ${limit.remaining}/${limit.limit} messages left this minute.`,
      result: {
        tokenName: token.name,
        role: token.role,
        grants: ROLE_GRANTS[token.role],
        scope,
        organization: context.organization.slug,
        rateLimit: {
          limit: limit.limit,
          remaining: limit.remaining,
          // Rounded up: an agent that waits until resetAt never comes back a fraction too early.
          resetAt: isoSeconds(new Date(Math.ceil(limit.resetAt / 1000) * 1000)),
          resetInSeconds: Math.max(0, Math.ceil((limit.resetAt - now) / 1000)),
        },
      },
    };
  },
});
