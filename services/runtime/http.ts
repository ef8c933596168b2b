// The Koa app factory every role builds on: request logging and metrics, the one place where
// domain errors become HTTP responses, /healthz and /metrics. Roles add their routes and never
// call listen() themselves; the CLI composes and starts them.
import { randomUUID } from 'node:crypto';
import Koa from 'koa';
import { ErrataError, isBusy, RateLimitedError, UserInputError } from '../core/errors.ts';
import { withTimeout } from '../core/with-timeout.ts';
import type { Logger } from './logger.ts';
import { renderMetrics, type Metrics } from './metrics.ts';

export interface HealthCheck {
  name: string;
  check(): Promise<void>;
}

export interface HttpDeps {
  logger: Logger;
  metrics: Metrics;
  health: HealthCheck[];
  /**
   * ERRATA_TRUSTED_PROXIES: ctx.ip is X-Forwarded-For's entry this many from its end, the one the
   * outermost trusted proxy added; entries before it are the client's to write. 0 or absent: the
   * connection's address.
   */
  trustedProxies?: number;
  /** How long /healthz waits for a check before it counts as failed; HEALTH_CHECK_TIMEOUT_MS. */
  healthTimeoutMs?: number;
}

/**
 * A check that has not answered by then is failed (within the operator's readiness probe's 3 s,
 * so the kubelet sees the 503 naming it): a store that hangs (a connection cut without
 * a reset, the backend thread stuck) held /healthz open for as long, so the probe saw no answer
 * rather than which part is down.
 */
const HEALTH_CHECK_TIMEOUT_MS = 2_000;

/** The HTTP status of each domain error, for every surface. */
export const ERROR_STATUS: Record<ErrataError['code'], number> = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  unavailable: 503,
};

export function createHttpApp(deps: HttpDeps): Koa {
  const hops = deps.trustedProxies ?? 0;
  const app = new Koa({ proxy: hops > 0, maxIpsCount: hops });
  app.silent = true;
  app.use(observe(deps));
  app.use(mapErrors(deps.logger));
  app.use(boundQueryParameters);
  app.use(async (ctx, next) => {
    if (ctx.method === 'GET' && ctx.path === '/healthz') {
      const failures: Record<string, string> = {};
      const timeoutMs = deps.healthTimeoutMs ?? HEALTH_CHECK_TIMEOUT_MS;
      await Promise.all(
        deps.health.map(async (h) => {
          try {
            await withTimeout(h.check(), timeoutMs, `the ${h.name} check`);
          } catch (error) {
            // Driver text stays in the log, under the request's id; the probe learns only which part is down.
            ctx.state.log.warn({ err: error, check: h.name }, 'health check failed');
            failures[h.name] = 'unavailable';
          }
        }),
      );
      const healthy = Object.keys(failures).length === 0;
      ctx.status = healthy ? 200 : 503;
      ctx.body = healthy ? { status: 'ok' } : { status: 'unavailable', failing: failures };
      ctx.state.route = '/healthz';
      return;
    }
    if (ctx.method === 'GET' && ctx.path === '/metrics') {
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await renderMetrics(deps.metrics);
      ctx.state.route = '/metrics';
      return;
    }
    await next();
  });
  return app;
}

/**
 * The most query parameters a request may carry. Koa reads a query string in time quadratic in
 * its parameters (one getAll per key), so 8,000 `a&` in a 16 KB address took the event loop
 * most of a second, before sign-in; no page or API takes more than a few dozen.
 */
const MAX_QUERY_PARAMETERS = 100;

const boundQueryParameters: Koa.Middleware = async (ctx, next) => {
  const query = ctx.querystring;
  let parameters = query === '' ? 0 : 1;
  for (let at = query.indexOf('&'); at !== -1 && parameters <= MAX_QUERY_PARAMETERS; at = query.indexOf('&', at + 1))
    parameters++;
  if (parameters > MAX_QUERY_PARAMETERS) {
    throw new UserInputError(
      `the address has more than ${MAX_QUERY_PARAMETERS} query parameters; send at most ${MAX_QUERY_PARAMETERS}`,
    );
  }
  await next();
};

function observe(deps: HttpDeps): Koa.Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    requestLogger(ctx, deps.logger);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Route templates, never raw paths, so the label set stays small.
      const route = ctx.state.route ?? (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      const labels = { route: String(route), method: ctx.method, status: String(ctx.status) };
      deps.metrics.httpRequests.inc(labels);
      deps.metrics.httpDuration.observe(labels, seconds);
      if (ctx.status >= 500) ctx.state.log.warn({ route: labels.route, status: ctx.status, seconds }, 'request failed');
      else if (deps.logger.isLevelEnabled('debug'))
        ctx.state.log.debug({ route: labels.route, status: ctx.status, seconds }, 'request');
    }
  };
}

/**
 * `ctx.state.log`: the logger whose lines carry the request's id, made when the request first
 * logs. Most requests log nothing at the default level, and making a pino child (its bindings
 * serialized) and an id for each was 1.6% of the standalone server's main thread under load
 * (docs/benchmarks.md, 2026-12-01 (sixth)).
 */
function requestLogger(ctx: Koa.Context, logger: Logger): void {
  let log: Logger | undefined;
  Object.defineProperty(ctx.state, 'log', {
    get: () => (log ??= logger.child({ requestId: randomUUID() })),
    enumerable: true,
    configurable: true,
  });
}

/** Domain errors carry their own client-facing message; anything else is a 500 with none. */
function mapErrors(logger: Logger): Koa.Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof ErrataError) {
        ctx.status = ERROR_STATUS[error.code];
        ctx.body = { error: { code: error.code, message: error.message } };
        if (error instanceof RateLimitedError) {
          ctx.set('Retry-After', String(error.retryAfterSeconds));
          ctx.set(error.headers);
        }
        if (isBusy(error)) ctx.set('Retry-After', String(error.retryAfterSeconds));
        return;
      }
      (ctx.state.log ?? logger).error({ err: error }, 'unhandled error');
      ctx.status = 500;
      ctx.body = { error: { code: 'internal', message: 'internal error: the server logged the details' } };
    }
  };
}
