// The mcp role, assembled here once for `errata serve mcp` and `errata start` alike: its
// settings from the configuration, and its Koa app (/mcp, /api/v1, the bootstrap documents)
// over the role's ports. The dashboard will join the app here, in both modes at once.
import type Koa from 'koa';
import type { Config } from '../runtime/config.ts';
import type { HttpDeps } from '../runtime/http.ts';
import type { McpPorts } from '../runtime/role-ports.ts';
import { passwordHasher } from '../runtime/passwords.ts';
import { buildMcpApp } from './app.ts';

interface McpSettings {
  /** ERRATA_BASE_URL: links and DSNs in answers. */
  baseUrl: string;
  /** The widest log search window: ERRATA_EVENT_RETENTION_DAYS, in minutes. */
  maxLogWindowMinutes: number;
  /** ERRATA_AGENT_RATE_LIMIT_PER_MINUTE. */
  agentCallsPerMinute: number;
  /** ERRATA_API_RATE_LIMIT_PER_MINUTE. */
  apiCallsPerMinute: number;
  /** ERRATA_WEBHOOK_ALLOW_HOSTS, which a new channel's URL is checked against. */
  webhookAllowHosts: readonly string[];
  /** ERRATA_RATE_LIMIT_EVENTS_PER_MINUTE, shown on a project's Keys tab as the default. */
  defaultEventsPerMinute: number;
  /** ERRATA_OIDC_*: single sign-on on the dashboard's sign-in page. */
  oidc: Config['oidc'];
  /** ERRATA_TRUSTED_PROXIES: whose address a sign-in comes from. */
  trustedProxies: number;
}

export function mcpSettings(config: Config): McpSettings {
  return {
    baseUrl: config.baseUrl,
    maxLogWindowMinutes: config.eventRetentionDays * 1440,
    agentCallsPerMinute: config.agentCallsPerMinute,
    apiCallsPerMinute: config.apiCallsPerMinute,
    webhookAllowHosts: config.webhooks.allowHosts,
    defaultEventsPerMinute: config.rateLimits.eventsPerMinute,
    oidc: config.oidc,
    trustedProxies: config.trustedProxies,
  };
}

/** `keysChanged`: where ingest runs in the same process, its key cache, told of the dashboard's DSN key changes. */
export function buildMcpRole(
  ports: McpPorts,
  settings: McpSettings,
  runtime: HttpDeps,
  keysChanged?: (publicKey?: string) => void,
): Koa {
  return buildMcpApp({
    ...(keysChanged ? { keysChanged } : {}),
    metadata: ports.metadata,
    users: ports.users,
    passwords: passwordHasher,
    events: ports.events,
    logs: ports.logs,
    blobs: ports.blobs,
    alerts: ports.alerts,
    secrets: ports.secrets,
    ...settings,
    ...runtime,
  });
}
