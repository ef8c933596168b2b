// The bootstrap documents (mcp role): the public agent manifest, skills and /llms.txt, and the
// install guides, which need an agent token that can see the project or a person signed in to
// the dashboard (SPEC: "any organization member"; the one /api/v1 route a session cookie opens,
// and only for reading), and carry the DSN only to a role that may read one (as get_dsn
// decides for tokens, the `projects` capability for people); others get a placeholder. Those
// under /api/v1 take no query parameters and refuse any, as the rest of /api/v1 does; /llms.txt,
// a document for crawlers, ignores them.
import Router from '@koa/router';
import type Koa from 'koa';
import { DSN_READER_ROLE, roleAtLeast } from '../../core/auth/roles.ts';
import { NotFoundError } from '../../core/errors.ts';
import { can } from '../../core/auth/capabilities.ts';
import type { AgentToken, MetadataStore, Organization, Project } from '../../core/ports/metadata-store.ts';
import type { User, UserStore } from '../../core/ports/user-store.ts';
import { cookieNames } from '../../dashboard/auth/cookies.ts';
import { currentSession } from '../../dashboard/auth/current-session.ts';
import { formatDsn } from '../../core/projects/slug.ts';
import { pathProject, requireAgentToken, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams } from '../api/query-params.ts';
import type { ToolList } from '../tool-list.ts';
import { agentsManifest } from './agents-manifest.ts';
import { isGuidePlatform, renderInstallGuide } from '../../core/projects/install-guide.ts';
import { llmsTxt } from './llms-txt.ts';
import { renderSkill, SKILL_NAMES, type SkillName } from './skills.ts';
import { toolCatalog } from './tool-catalog.ts';

interface BootstrapDeps extends MeteredCalls {
  metadata: MetadataStore;
  /** The dashboard's people, whose session cookie also opens the install guides. */
  users: UserStore;
  baseUrl: string;
  /** Every tool as /mcp lists it (to a token that may call it); the manifest's catalog is made from it. */
  toolList: ToolList;
}

export function bootstrapRoutes(deps: BootstrapDeps): Koa.Middleware {
  const router = new Router();
  router.get('/api/v1/agents', async (ctx) => {
    noQueryParams(ctx);
    ctx.body = agentsManifest(deps.baseUrl, await toolCatalog(deps.toolList));
  });
  router.get('/api/v1/agents/skills/:file', (ctx) => {
    noQueryParams(ctx);
    const name = ctx.params.file!.replace(/\.md$/, '');
    if (!ctx.params.file!.endsWith('.md') || !(SKILL_NAMES as readonly string[]).includes(name)) {
      throw new NotFoundError(
        `no skill "${ctx.params.file!.slice(0, 60)}": there are ${SKILL_NAMES.map((n) => `${n}.md`).join(' and ')}`,
      );
    }
    markdown(ctx, renderSkill(name as SkillName, deps.baseUrl));
  });
  router.get('/llms.txt', async (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = llmsTxt(deps.baseUrl, await toolCatalog(deps.toolList));
  });
  const jar = cookieNames(deps.baseUrl);
  const tokenOrPerson: Koa.Middleware = async (ctx, next) => {
    // A bearer token, when given, decides alone: a stale cookie beside it changes nothing.
    const person = ctx.get('authorization') ? undefined : await currentSession(deps.users, jar, ctx);
    if (!person) return requireAgentToken(deps.metadata, Date.now, deps.apiCalls)(ctx, next);
    ctx.state.person = person.user;
    await next();
  };
  router.get('/api/v1/organizations/:org/projects/:project/install/:file', tokenOrPerson, async (ctx) => {
    noQueryParams(ctx);
    const platform = ctx.params.file!.replace(/\.md$/, '');
    if (!ctx.params.file!.endsWith('.md') || !isGuidePlatform(platform)) {
      throw new NotFoundError('no such install guide: use node.md, python.md or browser.md');
    }
    const person = ctx.state.person as User | undefined;
    const { organization, project } = person ? await personProject(deps.metadata, ctx) : await pathProject(deps.metadata, ctx);
    const token = ctx.state.token as AgentToken;
    const dsn = person
      ? can({ kind: 'user', role: person.role }, 'projects')
        ? await activeDsn(deps, project)
        : { placeholderForPerson: person.role }
      : roleAtLeast(token.role, DSN_READER_ROLE)
        ? await activeDsn(deps, project)
        : { placeholderFor: token.role };
    markdown(
      ctx,
      renderInstallGuide(platform, { baseUrl: deps.baseUrl, organization: organization.slug, project: project.slug, dsn }),
    );
  });
  return router.routes() as unknown as Koa.Middleware;
}

/** People see every organization and project of the instance (their role is installation-wide). */
async function personProject(
  metadata: MetadataStore,
  ctx: Koa.Context,
): Promise<{ organization: Organization; project: Project }> {
  const organization = await metadata.findOrganization(ctx.params.org!);
  if (!organization) throw new NotFoundError(`no organization "${ctx.params.org!.slice(0, 60)}"`);
  const project = await metadata.findProject(organization.id, ctx.params.project!);
  if (!project)
    throw new NotFoundError(`no project "${ctx.params.project!.slice(0, 60)}" in organization "${organization.slug}"`);
  return { organization, project };
}

async function activeDsn(deps: BootstrapDeps, project: Project): Promise<string> {
  const key = (await deps.metadata.listProjectKeys(project.id)).find((k) => k.active);
  if (!key) throw new NotFoundError(`project ${project.slug} has no active DSN key: an admin enables one with errata enablekey`);
  return formatDsn(deps.baseUrl, key.publicKey, project.id);
}

function markdown(ctx: Koa.Context, text: string): void {
  ctx.type = 'text/markdown; charset=utf-8';
  ctx.body = text;
}
