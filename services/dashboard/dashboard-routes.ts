// The dashboard's routes, mounted by the mcp app: its pages (/, /login, /organizations/...)
// and their assets (/assets/...), every response with the security headers. Other paths
// (/mcp, /api/v1, ...) pass through untouched: those stay bearer-only and never read cookies.
// A page is a component in pages/ (inside components/app-shell.tsx's frame, or document.tsx's
// for pages outside an organization) sent with sendPage; it uses class names from
// assets/style.css and never a style attribute or inline script, which the policy refuses.
import type Koa from 'koa';
import { h } from 'preact';
import type { Logger } from '../runtime/logger.ts';
import { serveAsset } from './assets/asset-routes.ts';
import { ASSET_PREFIX, loadAssets, type AssetSet } from './assets/asset-store.ts';
import { LoginPage } from './pages/login.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { sendPage } from './render-page.ts';
import { setSecurityHeaders } from './security-headers.ts';

interface DashboardDeps {
  logger: Logger;
}

const SIGN_IN_NOT_YET =
  'Sign-in arrives with user accounts, which this version of Errata does not have yet. Meanwhile, agents and scripts use the API with a token that errata createtoken prints.';

export function dashboardRoutes(deps: DashboardDeps): Koa.Middleware {
  // Loaded by the first dashboard request, not at construction: from source (every unit test
  // that builds the mcp app) loading means an esbuild run. A failure is logged and retried.
  let assets: Promise<AssetSet> | undefined;
  const loaded = () => {
    assets ??= loadAssets().catch((error: unknown) => {
      deps.logger.error({ err: error }, 'the dashboard cannot load its assets');
      assets = undefined;
      throw error;
    });
    return assets;
  };

  return async (ctx, next) => {
    const route = dashboardRoute(ctx.path);
    if (!route) return next();
    setSecurityHeaders(ctx);
    ctx.state.route = route;
    await handle(ctx, route, await loaded());
  };
}

type Route = '/' | '/login' | typeof ASSET_PREFIX | '/organizations/:rest';

function dashboardRoute(path: string): Route | undefined {
  if (path === '/' || path === '/login') return path;
  if (path.startsWith(ASSET_PREFIX)) return ASSET_PREFIX;
  if (path === '/organizations' || path.startsWith('/organizations/')) return '/organizations/:rest';
  return undefined;
}

async function handle(ctx: Koa.Context, route: Route, assets: AssetSet): Promise<void> {
  switch (route) {
    case ASSET_PREFIX:
      return serveAsset(ctx, assets);
    case '/':
      // The Issues page will answer here once there are users; until then, signing in is all.
      ctx.redirect('/login');
      return;
    case '/login':
      if (ctx.method === 'POST') return sendPage(ctx, 501, h(LoginPage, { assets, notice: SIGN_IN_NOT_YET }));
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return methodNotAllowed(ctx, 'GET, POST');
      return sendPage(ctx, 200, h(LoginPage, { assets }));
    case '/organizations/:rest': {
      const organization = decodeSegment(ctx.path.split('/')[2] ?? '') || undefined;
      return sendPage(ctx, 404, h(NotFoundPage, { assets, organization, path: ctx.path.slice(0, 200) }));
    }
  }
}

function methodNotAllowed(ctx: Koa.Context, allow: string): void {
  ctx.status = 405;
  ctx.set('Allow', allow);
  ctx.type = 'text/plain';
  ctx.body = `${ctx.method} is not allowed here; use ${allow}\n`;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
