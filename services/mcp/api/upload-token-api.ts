// Source map upload tokens through the management API (mcp role), for admin agent tokens:
// the same operations as `errata createuploadtoken | listuploadtokens | revokeuploadtoken`,
// confined to the caller's organization and, for a project-scoped token, its project.
import Router from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import { strictObject } from '../../core/strict-object.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import {
  createUploadToken,
  revokeProjectUploadToken,
  uploadTokenJson,
  uploadToolEnvironment,
} from '../../core/provisioning/upload-tokens.ts';
import { readJsonBody } from '../../runtime/json-body.ts';
import { pathProject, requireAgentToken, requireRoleOf, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams } from './query-params.ts';

interface UploadTokenApiDeps extends MeteredCalls {
  metadata: MetadataStore;
  baseUrl: string;
}

const createBody = strictObject({ name: z.string().min(1).max(100).optional() });

export function uploadTokenApiRoutes(deps: UploadTokenApiDeps): Koa.Middleware {
  const router = new Router({ prefix: '/api/v1/organizations/:org/projects/:project/upload-tokens' });
  router.use(requireAgentToken(deps.metadata, Date.now, deps.apiCalls));
  // Checked before the organization and project are looked up: a refusal tells nothing.
  router.use(requireRoleOf('admin'));
  const projectOf = (ctx: Koa.Context) => pathProject(deps.metadata, ctx);

  router.post('/', async (ctx) => {
    noQueryParams(ctx);
    const { organization, project } = await projectOf(ctx);
    const parsed = createBody.safeParse((await readJsonBody(ctx.req, 64 * 1024)) ?? {});
    if (!parsed.success)
      throw new UserInputError(`invalid body: ${parsed.error.issues[0]!.message}; send {"name": "<optional name>"}`);
    const created = await createUploadToken(deps.metadata, {
      project: project.slug,
      organization: organization.slug,
      ...(parsed.data.name ? { name: parsed.data.name } : {}),
    });
    ctx.status = 201;
    // The token's only showing: no cache on the way may keep a live credential.
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      token: uploadTokenJson(created.token),
      plaintext: created.plaintext,
      uploadToolEnvironment: uploadToolEnvironment(deps.baseUrl, project.slug, created.plaintext),
    };
  });

  router.get('/', async (ctx) => {
    noQueryParams(ctx);
    const { organization, project } = await projectOf(ctx);
    const tokens = (await deps.metadata.listUploadTokens(organization.id)).filter((t) => t.projectId === project.id);
    ctx.body = { tokens: tokens.map(uploadTokenJson) };
  });

  router.delete('/:name', async (ctx) => {
    noQueryParams(ctx);
    const { project } = await projectOf(ctx);
    ctx.body = { token: uploadTokenJson(await revokeProjectUploadToken(deps.metadata, project, ctx.params.name!)) };
  });

  return router.routes() as unknown as Koa.Middleware;
}
