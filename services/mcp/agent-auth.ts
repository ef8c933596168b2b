// Who is calling the agent surfaces (/api/v1 now, /mcp later): `Authorization: Bearer
// errata_agent_...`, looked up by its SHA-256 on every request, so a revocation takes effect on
// the very next one. Visibility rules live here too: a token sees only its organization, and a
// project-scoped token only its project; anything else looks exactly like "not found".
import type Koa from 'koa';
import type { AgentCallLimiter } from '../core/auth/agent-rate-limit.ts';
import { roleAtLeast, type Role } from '../core/auth/roles.ts';
import { AGENT_TOKEN_PREFIX, hashSecret } from '../core/auth/secrets.ts';
import { ForbiddenError, NotFoundError, RateLimitedError, UnauthorizedError } from '../core/errors.ts';
import type { AgentToken, MetadataStore, Organization, Project } from '../core/ports/metadata-store.ts';

const HOW_TO_GET_A_TOKEN =
  'send "Authorization: Bearer errata_agent_..."; an administrator creates one with `errata createtoken --role read|triage|admin [--project <slug>]`';

/** How stale a token's recorded last use may get: the Agent tokens page shows it to the minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** What the /api/v1 routers take to meter their calls: the /mcp route meters its own messages. */
export interface MeteredCalls {
  /** Each call counts toward its token's ERRATA_API_RATE_LIMIT_PER_MINUTE. */
  apiCalls?: AgentCallLimiter;
}

/**
 * `calls`: where given, each request is one call of its token's minute, refused with 429 past
 * the limit, as /mcp refuses a message: a loop on the REST API starved the database no less.
 */
export function requireAgentToken(
  metadata: MetadataStore,
  now: () => number = Date.now,
  calls?: AgentCallLimiter,
): Koa.Middleware {
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw unauthorized(ctx, `missing bearer token: ${HOW_TO_GET_A_TOKEN}`);
    const plaintext = match[1]!;
    // Looked up by its SHA-256: what a timing difference could reveal is a digest the caller
    // cannot steer, never the stored secret itself.
    const token = plaintext.startsWith(AGENT_TOKEN_PREFIX) ? await metadata.findAgentToken(hashSecret(plaintext)) : undefined;
    if (!token) throw unauthorized(ctx, `unknown or revoked token: ${HOW_TO_GET_A_TOKEN}`);
    // The row just read says when it was last recorded: a write only when that is a minute old.
    const at = now();
    if (!token.lastUsedAt || at - token.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await metadata.markAgentTokenUsed(token.id, new Date(at));
    }
    if (calls) {
      const decision = calls.take(token.id, at);
      if (!decision.allowed) {
        const wait = decision.retryAfterSeconds;
        throw new RateLimitedError(
          `this token made ${decision.limit} API calls in the last minute, its limit (ERRATA_API_RATE_LIMIT_PER_MINUTE); ` +
            `retry in ${wait} seconds`,
          wait,
        );
      }
    }
    ctx.state.token = token;
    await next();
  };
}

function unauthorized(ctx: Koa.Context, message: string): UnauthorizedError {
  ctx.set('WWW-Authenticate', 'Bearer realm="errata"');
  return new UnauthorizedError(message);
}

/** As middleware, for every route of a router: checked before anything is looked up. */
export function requireRoleOf(minimum: Role): Koa.Middleware {
  return async (ctx, next) => {
    requireRole(ctx.state.token as AgentToken, minimum);
    await next();
  };
}

function requireRole(token: AgentToken, minimum: Role): void {
  if (!roleAtLeast(token.role, minimum)) {
    throw new ForbiddenError(`this needs a token with role ${minimum} or higher; this token has role ${token.role}`);
  }
}

/** The organization named in the path, if the token belongs to it. */
export async function visibleOrganization(metadata: MetadataStore, token: AgentToken, slug: string): Promise<Organization> {
  const organization = await metadata.findOrganization(slug);
  if (!organization || organization.id !== token.organizationId) {
    throw new NotFoundError(`no organization "${slug.slice(0, 60)}" is visible to this token`);
  }
  return organization;
}

/** The project of that organization, if the token may see it. */
async function visibleProject(
  metadata: MetadataStore,
  token: AgentToken,
  organization: Organization,
  slug: string,
): Promise<Project> {
  const project = await metadata.findProject(organization.id, slug);
  if (!project || !canSeeProject(token, project)) {
    throw new NotFoundError(`no project "${slug.slice(0, 60)}" is visible to this token`);
  }
  return project;
}

export function canSeeProject(token: AgentToken, project: Project): boolean {
  return project.organizationId === token.organizationId && (token.projectId === null || token.projectId === project.id);
}

/** The organization and project of an `/organizations/:org/projects/:project/...` path, if the token may see them. */
export async function pathProject(
  metadata: MetadataStore,
  ctx: Koa.Context,
): Promise<{ organization: Organization; project: Project }> {
  const token = ctx.state.token as AgentToken;
  const organization = await visibleOrganization(metadata, token, ctx.params.org!);
  return { organization, project: await visibleProject(metadata, token, organization, ctx.params.project!) };
}
