// The ingest role's Koa app: the SDK endpoints, behind CORS, and the source map upload
// protocol (/api/0/), on the shared HTTP base (/healthz, /metrics, error mapping).
import type Koa from 'koa';
import { createHttpApp, type HealthCheck } from '../runtime/http.ts';
import type { Logger } from '../runtime/logger.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { MetadataStore } from '../core/ports/metadata-store.ts';
import type { IngestDeps } from './accept-items.ts';
import { sdkCors } from './cors.ts';
import type { BodyBudget, BodyLimits } from './read-body.ts';
import { sdkEndpointOf, sdkEndpoints } from './sdk-endpoints.ts';
import { uploadRoutes, type UploadLimits } from './upload/upload-routes.ts';

interface IngestAppDeps extends IngestDeps {
  logger: Logger;
  blobs: BlobStore;
  metadata: MetadataStore;
  baseUrl: string;
  health: HealthCheck[];
  bodyLimits: BodyLimits;
  bodyBudget: BodyBudget;
  uploadLimits: UploadLimits;
  /** ERRATA_TRUSTED_PROXIES: which X-Forwarded-For entry is the SDK's address (runtime/http.ts). */
  trustedProxies: number;
}

export function buildIngestApp(deps: IngestAppDeps): Koa {
  const app = createHttpApp({
    logger: deps.logger,
    metrics: deps.metrics,
    health: deps.health,
    trustedProxies: deps.trustedProxies,
  });
  app.use(async (ctx, next) => (sdkEndpointOf(ctx.path) ? sdkCors(ctx, next) : next()));
  app.use(sdkEndpoints(deps));
  app.use(uploadRoutes(deps));
  // Standalone sends every other path to the mcp app; the ingest role answers them itself.
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = {
      error: {
        code: 'not_found',
        message: `no such endpoint: ${ctx.method} ${ctx.path.slice(0, 200)}; ingest serves /api/{id}/envelope/, /api/{id}/store/ and /api/0/, the mcp role the rest`,
      },
    };
  });
  return app;
}

/** Paths the ingest role serves; everything else belongs to the mcp role. */
export function isIngestPath(path: string): boolean {
  return sdkEndpointOf(path) !== undefined || path === '/api/0' || path.startsWith('/api/0/');
}
