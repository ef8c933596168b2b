// A project through the management API (mcp role), for admin agent tokens:
//   PUT /api/v1/organizations/{org}/projects/{project} with {"name": "..."} renames it;
//   DELETE the same path with ?confirm=<the project's slug> deletes it.
// The same operations as the dashboard's Set-up page and `errata renameproject | deleteproject`,
// which ask for the slug again too: nothing of a deleted project comes back. A token limited to
// the project may delete it, and goes with it; the server's log says which token did.
import Router from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import type { AgentToken, MetadataStore } from '../../core/ports/metadata-store.ts';
import { deleteProject, PROJECT_DELETED, renameProject } from '../../core/provisioning/projects.ts';
import { strictObject } from '../../core/strict-object.ts';
import { readJsonBody } from '../../runtime/json-body.ts';
import { pathProject, requireAgentToken, requireRoleOf, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams, queryParams, queryShape } from './query-params.ts';
import type { Logger } from '../../runtime/logger.ts';

interface ProjectApiDeps extends MeteredCalls {
  metadata: MetadataStore;
  logger: Logger;
  /** Where ingest runs in the same process, its key cache. */
  keysChanged?: ((publicKey?: string) => void) | undefined;
}

const putBody = strictObject({ name: z.string() });
const deleteQuery = queryShape({ confirm: z.string().optional() });

export function projectApiRoutes(deps: ProjectApiDeps): Koa.Middleware {
  const router = new Router({ prefix: '/api/v1/organizations/:org/projects/:project' });
  router.use(requireAgentToken(deps.metadata, Date.now, deps.apiCalls));
  // Checked before the organization and project are looked up: a refusal tells nothing.
  router.use(requireRoleOf('admin'));

  router.put('/', async (ctx) => {
    noQueryParams(ctx);
    const { project } = await pathProject(deps.metadata, ctx);
    const parsed = putBody.safeParse((await readJsonBody(ctx.req, 16 * 1024)) ?? {});
    if (!parsed.success)
      throw new UserInputError(`invalid body: ${parsed.error.issues[0]!.message}; send {"name": "<new name>"}`);
    const renamed = await renameProject(deps.metadata, project, parsed.data.name);
    ctx.body = { project: { slug: renamed.slug, name: renamed.name } };
  });

  router.delete('/', async (ctx) => {
    const { confirm } = queryParams(ctx, deleteQuery);
    const { organization, project } = await pathProject(deps.metadata, ctx);
    if (confirm !== project.slug) {
      const given = confirm === undefined ? 'no ?confirm' : `?confirm=${confirm.slice(0, 60)}, not the project's slug`;
      throw new UserInputError(
        `${given}: add ?confirm=${project.slug} to delete the project with everything in it; nothing was deleted`,
      );
    }
    for (const key of (await deleteProject(deps.metadata, project, new Date())).publicKeys) deps.keysChanged?.(key);
    const token = ctx.state.token as AgentToken;
    deps.logger.info(
      { organization: organization.slug, project: project.slug, projectId: project.id, byToken: token.name },
      'project deleted',
    );
    ctx.body = { deleted: { organization: organization.slug, project: project.slug }, effects: PROJECT_DELETED };
  });

  return router.routes() as unknown as Koa.Middleware;
}
