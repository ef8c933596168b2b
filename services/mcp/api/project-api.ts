// A project through the management API (mcp role), for admin agent tokens:
//   PUT /api/v1/organizations/{org}/projects/{project} with {"name": "..."} renames it;
//   DELETE the same path deletes it.
// The same operations as the dashboard's Set-up page and `errata renameproject | deleteproject`.
// A token limited to the project may delete it, and goes with it.
import Router from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import { deleteProject, PROJECT_DELETED, renameProject } from '../../core/provisioning/projects.ts';
import { strictObject } from '../../core/strict-object.ts';
import { readJsonBody } from '../../runtime/json-body.ts';
import { pathProject, requireAgentToken, requireRoleOf, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams } from './query-params.ts';

interface ProjectApiDeps extends MeteredCalls {
  metadata: MetadataStore;
  /** Where ingest runs in the same process, its key cache. */
  keysChanged?: ((publicKey?: string) => void) | undefined;
}

const putBody = strictObject({ name: z.string() });

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
    noQueryParams(ctx);
    const { organization, project } = await pathProject(deps.metadata, ctx);
    for (const key of (await deleteProject(deps.metadata, project, new Date())).publicKeys) deps.keysChanged?.(key);
    ctx.body = { deleted: { organization: organization.slug, project: project.slug }, effects: PROJECT_DELETED };
  });

  return router.routes() as unknown as Koa.Middleware;
}
