// Every page under /organizations: the signed-in check (anyone else goes to /login and comes
// back after), the organization the address names, the route table, and the pages a refusal
// gets (403 naming the role needed, 404 naming the address). Roles are installation-wide: a
// person sees every organization of the instance, with the same role in each.
import type Koa from 'koa';
import { h } from 'preact';
import { can, type Capability } from '../core/auth/capabilities.ts';
import { ForbiddenError, NotFoundError } from '../core/errors.ts';
import type { AssetSet } from './assets/asset-store.ts';
import { cookieNames } from './auth/cookies.ts';
import { checkedForm } from './auth/checked-form.ts';
import { sessionCsrfToken } from './auth/csrf.ts';
import { currentSession, type Signed } from './auth/current-session.ts';
import { rolesWith, type OrganizationDeps, type OrganizationPage, type OrganizationRoute } from './organization-page.ts';
import { ForbiddenPage } from './pages/forbidden.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { OrganizationsPage } from './pages/organizations.tsx';
import { sendPage } from './render-page.ts';
import { agentActivityRoutes } from './routes/agent-activity-routes.ts';
import { alertRuleRoutes } from './routes/alert-rule-routes.ts';
import { channelRoutes } from './routes/channel-routes.ts';
import { issueRoutes } from './routes/issue-routes.ts';
import { issuesRoutes } from './routes/issues-routes.ts';
import { logTailRoutes } from './routes/log-tail-routes.ts';
import { membersRoutes } from './routes/members-routes.ts';
import { logsRoutes } from './routes/logs-routes.ts';
import { projectRoutes } from './routes/project-routes.ts';
import { releaseRoutes } from './routes/release-routes.ts';
import { settingsRoutes } from './routes/settings-routes.ts';
import { sourceMapRoutes } from './routes/source-map-routes.ts';
import { whatsNewRoutes } from './routes/whats-new-routes.ts';

const ROUTES: readonly OrganizationRoute[] = [
  ...issuesRoutes,
  ...whatsNewRoutes,
  ...issueRoutes,
  ...projectRoutes,
  ...sourceMapRoutes,
  ...releaseRoutes,
  ...logsRoutes,
  ...channelRoutes,
  ...alertRuleRoutes,
  ...settingsRoutes,
  ...logTailRoutes,
  ...agentActivityRoutes,
  ...membersRoutes,
];

export function organizationRoutes(deps: OrganizationDeps) {
  const jar = cookieNames(deps.baseUrl);
  const now = () => new Date(deps.now?.() ?? Date.now());

  return async (ctx: Koa.Context, assets: AssetSet): Promise<void> => {
    const signed = await currentSession(deps.users, jar, ctx);
    if (!signed) return toSignIn(ctx);
    const [, , orgSegment, ...rest] = ctx.path.split('/');
    if (!orgSegment) return listOrganizations(ctx, assets, deps, signed);
    const organization = await deps.metadata.findOrganization(decodeSegment(orgSegment));
    const viewer = signed.user;
    const notFound = (reason?: string) =>
      sendPage(
        ctx,
        404,
        h(NotFoundPage, { assets, viewer, organization: organization?.slug, path: shownPath(ctx.path), reason }),
      );
    if (!organization) return notFound();
    const path = rest.join('/');
    if (path === '') return seeOther(ctx, `/organizations/${encodeURIComponent(organization.slug)}/issues`);

    const matching = ROUTES.map((route) => ({ route, match: route.path.exec(path) })).filter((m) => m.match);
    if (matching.length === 0) return notFound();
    const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
    const chosen = matching.find((m) => m.route.method === method);
    if (!chosen) {
      const allow = [...new Set(matching.flatMap((m) => (m.route.method === 'GET' ? ['GET', 'HEAD'] : [m.route.method])))];
      ctx.status = 405;
      ctx.set('Allow', allow.join(', '));
      ctx.type = 'text/plain';
      ctx.body = `${ctx.method} is not allowed here; use ${allow.join(', ')}\n`;
      return;
    }

    const actor = { kind: 'user', role: signed.user.role } as const;
    const csrf = sessionCsrfToken(signed.token);
    const page: OrganizationPage = {
      ctx,
      assets,
      deps,
      signed,
      viewer: signed.user,
      actor,
      organization,
      csrf,
      partial: ctx.get('HX-Request') === 'true',
      href: (...segments) => `/organizations/${[organization.slug, ...segments].map(encodeURIComponent).join('/')}`,
      can: (capability) => can(actor, capability),
      require(capability: Capability) {
        if (!can(actor, capability)) {
          throw new ForbiddenError(`this needs the ${rolesWith(capability)} role; you are ${signed.user.role}`);
        }
      },
      form: () => checkedForm(ctx, assets, deps.baseUrl, csrf),
      send: (status, element) => sendPage(ctx, status, element),
      seeOther: (to) => seeOther(ctx, to),
      now,
    };
    const params = chosen.match!.slice(1).map((group) => decodeSegment(group ?? ''));
    try {
      await chosen.route.handle(page, params);
    } catch (error) {
      if (error instanceof ForbiddenError) {
        return sendPage(ctx, 403, h(ForbiddenPage, { assets, viewer, organization: organization.slug, reason: error.message }));
      }
      if (error instanceof NotFoundError) {
        return notFound(error.message);
      }
      throw error;
    }
  };
}

/**
 * Sends a signed-out visitor to /login, to come back after. An htmx request (a poll, a part of a
 * page) would swap the sign-in page into its box: it gets HX-Redirect instead, which sends the
 * whole page there, to come back to the page the request was made from.
 */
function toSignIn(ctx: Koa.Context): void {
  if (ctx.get('HX-Request') === 'true') {
    const from = ctx.get('HX-Current-URL');
    let next = '';
    try {
      const url = new URL(from);
      next = `?next=${encodeURIComponent(`${url.pathname}${url.search}`.slice(0, 2000))}`;
    } catch {
      // No page to come back to: sign-in leads to the start page.
    }
    ctx.status = 200;
    ctx.set('HX-Redirect', `/login${next}`);
    ctx.body = '';
    return;
  }
  ctx.status = 303;
  ctx.redirect(ctx.method === 'GET' ? `/login?next=${encodeURIComponent(ctx.originalUrl.slice(0, 2000))}` : '/login');
}

/** /organizations: the only one's Issues page, or a list to choose from. */
async function listOrganizations(ctx: Koa.Context, assets: AssetSet, deps: OrganizationDeps, signed: Signed) {
  const organizations = await deps.metadata.listOrganizations();
  if (organizations.length === 1) return seeOther(ctx, `/organizations/${encodeURIComponent(organizations[0]!.slug)}/issues`);
  sendPage(ctx, 200, h(OrganizationsPage, { assets, organizations, viewer: signed.user }));
}

/** The address as a person typed it (decoded; rendered as text, never markup), cut to a readable length. */
function shownPath(path: string): string {
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // Not valid percent-encoding: shown as it came.
  }
  return decoded.slice(0, 200);
}

function seeOther(ctx: Koa.Context, to: string): void {
  ctx.redirect(to);
  ctx.status = 303;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
