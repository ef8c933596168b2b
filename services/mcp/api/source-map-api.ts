// Uploaded source maps through the management API (mcp role), for admin agent tokens: the
// project's stored files by Debug ID, and deleting those of one Debug ID.
import Router from '@koa/router';
import type Koa from 'koa';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import { deleteStoredMaps, listedMaps, storedMapJson } from '../../core/sourcemaps/stored-maps.ts';
import { pathProject, requireAgentToken, requireRoleOf, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams } from './query-params.ts';

interface SourceMapApiDeps extends MeteredCalls {
  metadata: MetadataStore;
  blobs: BlobStore;
}

export function sourceMapApiRoutes(deps: SourceMapApiDeps): Koa.Middleware {
  const router = new Router({ prefix: '/api/v1/organizations/:org/projects/:project/source-maps' });
  router.use(requireAgentToken(deps.metadata, Date.now, deps.apiCalls));
  router.use(requireRoleOf('admin'));
  const projectOf = async (ctx: Koa.Context) => (await pathProject(deps.metadata, ctx)).project;

  router.get('/', async (ctx) => {
    noQueryParams(ctx);
    const project = await projectOf(ctx);
    const { artifacts, total } = await listedMaps(deps.metadata, project.id);
    ctx.body = { sourceMaps: artifacts.map(storedMapJson), total };
  });

  router.delete('/:debugId', async (ctx) => {
    noQueryParams(ctx);
    const project = await projectOf(ctx);
    ctx.body = { deleted: (await deleteStoredMaps(deps, project.id, ctx.params.debugId!)).map(storedMapJson) };
  });

  return router.routes() as unknown as Koa.Middleware;
}
