// The mcp role's Koa app: the agent-facing HTTP surfaces. For now the read API under /api/v1;
// /mcp, the bootstrap documents and the dashboard join in later issues.
import type Koa from 'koa';
import { createHttpApp, type HealthCheck } from '../runtime/http.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { readApiRoutes, type ReadApiDeps } from './api/read-api.ts';

export interface McpAppDeps extends ReadApiDeps {
  logger: Logger;
  metrics: Metrics;
  health: HealthCheck[];
}

export function buildMcpApp(deps: McpAppDeps): Koa {
  const app = createHttpApp({ logger: deps.logger, metrics: deps.metrics, health: deps.health });
  app.use(readApiRoutes(deps));
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { error: { code: 'not_found', message: `no such endpoint: ${ctx.method} ${ctx.path.slice(0, 200)}` } };
  });
  return app;
}
