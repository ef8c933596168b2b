// The dashboard's routes, mounted by the mcp app: its pages (/, /login, /logout, /account,
// /setup, /reset, /invitations/{code}, /organizations/...)
// and their assets (/assets/...), every response with the security headers. Other paths
// (/mcp, /api/v1, ...) pass through untouched: those stay bearer-only and never read cookies.
// A page is a component in pages/ (inside components/app-shell.tsx's frame, or document.tsx's
// for pages outside an organization) sent with sendPage; it uses class names from
// assets/style.css and never a style attribute or inline script, which the policy refuses.
import type Koa from 'koa';
import { h } from 'preact';
import { serveAsset } from './assets/asset-routes.ts';
import { ASSET_PREFIX, loadAssets, type AssetSet } from './assets/asset-store.ts';
import { ERROR_STATUS } from '../runtime/http.ts';
import { isBusy, PayloadTooLargeError, UserInputError } from '../core/errors.ts';
import { BadRequestPage } from './pages/bad-request.tsx';
import { sendPage } from './render-page.ts';
import { setSecurityHeaders } from './security-headers.ts';
import { accountRoutes } from './account-routes.ts';
import { oidcRoutes, START_PATH, CALLBACK_PATH } from './oidc/oidc-routes.ts';
import { SignInThrottle } from './auth/sign-in-throttle.ts';
import { signInRoutes } from './sign-in-routes.ts';
import type { OrganizationDeps } from './organization-page.ts';
import { organizationRoutes } from './organization-routes.ts';

interface Handlers {
  signIn: ReturnType<typeof signInRoutes>;
  oidc: ReturnType<typeof oidcRoutes>;
  account: ReturnType<typeof accountRoutes>;
  organizations: ReturnType<typeof organizationRoutes>;
}

export function dashboardRoutes(deps: OrganizationDeps): Koa.Middleware {
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

  // One count of failed passwords, at sign-in and when changing one, so guesses cannot be split.
  const throttle = new SignInThrottle();
  const signIn = signInRoutes(deps, throttle);
  const oidc = oidcRoutes(deps);
  const account = accountRoutes(deps, throttle);
  const organizations = organizationRoutes(deps);

  return async (ctx, next) => {
    const route = dashboardRoute(ctx.path);
    if (!route) return next();
    setSecurityHeaders(ctx);
    ctx.state.route = route;
    const assets = await loaded();
    try {
      await handle(ctx, route, assets, { signIn, oidc, account, organizations });
    } catch (error) {
      // A person's mistake, or a server too busy for the form just now, gets a page; anything
      // else is the app's answer for it (a 500 logged as usual).
      if (!(error instanceof UserInputError || error instanceof PayloadTooLargeError || isBusy(error))) throw error;
      if (isBusy(error)) ctx.set('Retry-After', String(error.retryAfterSeconds));
      sendPage(ctx, ERROR_STATUS[error.code], h(BadRequestPage, { assets, message: error.message }));
    }
  };
}

/** The dashboard's fixed paths (the Ingress must send each to mcp: operator/desired/networking.ts). */
export const PAGES = [
  '/',
  '/login',
  '/logout',
  '/account',
  '/account/password',
  '/account/sessions/end',
  '/setup',
  '/reset',
  START_PATH,
  CALLBACK_PATH,
] as const;
type Route = (typeof PAGES)[number] | typeof ASSET_PREFIX | '/organizations/:rest' | '/invitations/:code';

/** Which methods each page takes; anything else is a 405. */
const METHODS: Record<(typeof PAGES)[number], string> = {
  '/': 'GET, HEAD',
  '/login': 'GET, HEAD, POST',
  '/logout': 'POST',
  '/account': 'GET, HEAD, POST',
  '/account/password': 'POST',
  '/account/sessions/end': 'POST',
  '/setup': 'GET, HEAD, POST',
  '/reset': 'GET, HEAD, POST',
  [START_PATH]: 'GET, HEAD',
  [CALLBACK_PATH]: 'GET, HEAD',
};

function dashboardRoute(path: string): Route | undefined {
  if ((PAGES as readonly string[]).includes(path)) return path as Route;
  if (path.startsWith(ASSET_PREFIX)) return ASSET_PREFIX;
  if (path === '/organizations' || path.startsWith('/organizations/')) return '/organizations/:rest';
  // The code stays out of the route label (logs and metrics name the template).
  if (/^\/invitations\/[^/]+$/.test(path)) return '/invitations/:code';
  return undefined;
}

async function handle(
  ctx: Koa.Context,
  route: Route,
  assets: AssetSet,
  { signIn, oidc, account, organizations }: Handlers,
): Promise<void> {
  if (route === '/invitations/:code' && !['GET', 'HEAD', 'POST'].includes(ctx.method))
    return methodNotAllowed(ctx, 'GET, HEAD, POST');
  if (
    route !== ASSET_PREFIX &&
    route !== '/organizations/:rest' &&
    route !== '/invitations/:code' &&
    !METHODS[route].split(', ').includes(ctx.method)
  ) {
    return methodNotAllowed(ctx, METHODS[route]);
  }
  switch (route) {
    case ASSET_PREFIX:
      return serveAsset(ctx, assets);
    case '/':
      return signIn.home(ctx);
    case '/login':
      return signIn.login(ctx, assets);
    case '/logout':
      return signIn.logout(ctx, assets);
    case '/account':
      return account.account(ctx, assets);
    case '/account/password':
      return account.password(ctx, assets);
    case '/account/sessions/end':
      return account.endSession(ctx, assets);
    case '/setup':
      return signIn.setup(ctx, assets);
    case '/reset':
      return signIn.reset(ctx, assets);
    case START_PATH:
      return oidc.start(ctx, assets);
    case CALLBACK_PATH:
      return oidc.callback(ctx, assets);
    case '/organizations/:rest':
      return organizations(ctx, assets);
    case '/invitations/:code':
      return signIn.invitation(ctx, assets, ctx.path.slice('/invitations/'.length));
  }
}

function methodNotAllowed(ctx: Koa.Context, allow: string): void {
  ctx.status = 405;
  ctx.set('Allow', allow);
  ctx.type = 'text/plain';
  ctx.body = `${ctx.method} is not allowed here; use ${allow}\n`;
}
