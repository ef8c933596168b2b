// The mcp role's Koa app: the agent-facing HTTP surfaces. /mcp (MCP over Streamable HTTP),
// the bootstrap documents (/api/v1/agents, skills, install guides, /llms.txt) and the read and
// management APIs under /api/v1, and the dashboard's pages for people.
import type Koa from 'koa';
import { createHttpApp, type HealthCheck } from '../runtime/http.ts';
import type { OidcConfig } from '../runtime/config.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { alertApiRoutes } from './api/alert-api.ts';
import { readApiRoutes, type ReadApiDeps } from './api/read-api.ts';
import type { SecretBox } from '../core/alerts/secret-box.ts';
import type { AlertStore } from '../core/ports/alert-store.ts';
import { sourceMapApiRoutes } from './api/source-map-api.ts';
import { uploadTokenApiRoutes } from './api/upload-token-api.ts';
import { groupingRulesApiRoutes } from './api/grouping-rules-api.ts';
import { projectApiRoutes } from './api/project-api.ts';
import type { BlobStore } from '../core/ports/blob-store.ts';
import type { UserStore } from '../core/ports/user-store.ts';
import type { PasswordHasher } from '../core/auth/password-hash.ts';
import { dashboardRoutes } from '../dashboard/dashboard-routes.ts';
import { bootstrapRoutes } from './bootstrap/bootstrap-routes.ts';
import { mcpRoute } from './mcp-route.ts';
import { AgentCallLimiter } from '../core/auth/agent-rate-limit.ts';
import { processToolList } from './tool-list.ts';

interface McpAppDeps extends ReadApiDeps {
  logger: Logger;
  metrics: Metrics;
  health: HealthCheck[];
  /** JSON-RPC messages to /mcp per token per minute. */
  agentCallsPerMinute: number;
  /** REST API (/api/v1) requests per token per minute. */
  apiCallsPerMinute: number;
  /** Uploaded source maps, for listing and deleting them. */
  blobs: BlobStore;
  /** Alert channels and rules, and the box their signing secrets are sealed in. */
  alerts: AlertStore;
  secrets: SecretBox;
  /** ERRATA_WEBHOOK_ALLOW_HOSTS, which a channel's URL is checked against. */
  webhookAllowHosts: readonly string[];
  /** The people who sign in to the dashboard, and the process's one password hasher. */
  users: UserStore;
  passwords: PasswordHasher;
  /** The dashboard's: the default event rate limit, and ingest's key cache where it shares the process. */
  defaultEventsPerMinute: number;
  keysChanged?: (publicKey?: string) => void;
  /** ERRATA_OIDC_*: the dashboard's single sign-on, when configured. */
  oidc?: OidcConfig | undefined;
  /** ERRATA_TRUSTED_PROXIES (runtime/http.ts). */
  trustedProxies?: number;
}

export function buildMcpApp(deps: McpAppDeps): Koa {
  const app = createHttpApp({
    logger: deps.logger,
    metrics: deps.metrics,
    health: deps.health,
    trustedProxies: deps.trustedProxies ?? 0,
  });
  const toolList = processToolList(deps.logger);
  // One count per process, read by /mcp (and whoami) and by the dashboard's Agent tokens page.
  const limiter = new AgentCallLimiter(deps.agentCallsPerMinute);
  app.use(
    mcpRoute({
      ...deps,
      limiter,
      maxWindowMinutes: deps.maxLogWindowMinutes,
      toolList,
    }),
  );
  // Each /api/v1 call counts toward its token's minute, as each /mcp message does, in a count
  // of its own: scripts poll the REST API more than agents talk, and neither starves the other.
  const metered = { ...deps, apiCalls: new AgentCallLimiter(deps.apiCallsPerMinute) };
  app.use(bootstrapRoutes({ ...metered, toolList }));
  app.use(uploadTokenApiRoutes(metered));
  app.use(sourceMapApiRoutes(metered));
  app.use(alertApiRoutes(metered));
  app.use(groupingRulesApiRoutes(metered));
  app.use(projectApiRoutes(metered));
  app.use(readApiRoutes(metered));
  app.use(dashboardRoutes({ ...deps, agentCalls: limiter }));
  app.use(async (ctx) => {
    ctx.status = 404;
    ctx.body = { error: { code: 'not_found', message: `no such endpoint: ${ctx.method} ${ctx.path.slice(0, 200)}` } };
  });
  return app;
}
