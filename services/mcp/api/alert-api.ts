// Alert channels and rules through the management API (mcp role), for admin agent tokens; the
// same operations as the CLI's `errata createchannel | createrule | ...`. Channels belong to the
// organization: a project-scoped admin token may list them, with their receivers' hosts rather
// than their URLs (to name them in its rules), but only an organization-wide one may see their
// URLs, change them, reveal their secrets or read their deliveries, which carry other projects'
// alerts.
import Router from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import * as manage from '../../core/alerts/alert-management.ts';
import { ForbiddenError, UserInputError } from '../../core/errors.ts';
import { strictObject } from '../../core/strict-object.ts';
import type { AlertChannel } from '../../core/alerts/alert-rules.ts';
import type { AgentToken, Organization } from '../../core/ports/metadata-store.ts';
import { readJsonBody } from '../../runtime/json-body.ts';
import { pathProject, requireAgentToken, requireRoleOf, visibleOrganization, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams, queryParams, queryShape } from './query-params.ts';
import { isRowId } from '../../core/row-id.ts';

const MAX_BODY_BYTES = 64 * 1024;

const LIMIT = `use a whole number from 1 to ${manage.MAX_LISTED_DELIVERIES}`;
const DELIVERIES_QUERY = queryShape({
  limit: z.coerce.number({ error: LIMIT }).int(LIMIT).min(1, LIMIT).max(manage.MAX_LISTED_DELIVERIES, LIMIT).optional(),
});

/** What Rotate and the two Send tests take: nothing, so a key sent to them is refused, not ignored. */
const NO_BODY = strictObject({});

function idParam(ctx: Koa.Context): number {
  const raw = ctx.params.id!;
  const id = /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : NaN;
  if (!isRowId(id)) {
    throw new UserInputError(`"${raw.slice(0, 40)}" is not an id: ids are positive integers, as the listings show them`);
  }
  return id;
}

function requireOrganizationWide(ctx: Koa.Context): void {
  const token = ctx.state.token as AgentToken;
  if (token.projectId !== null) {
    throw new ForbiddenError(
      'alert channels belong to the organization: this needs an organization-wide admin token (errata createtoken --role admin, without --project)',
    );
  }
}

/** An organization-wide token sees a channel whole; a project-scoped one, its receiver's host only. */
function channelView(ctx: Koa.Context): (channel: AlertChannel) => object {
  return (ctx.state.token as AgentToken).projectId === null ? manage.channelJson : manage.channelJsonForProject;
}

export function alertApiRoutes(deps: manage.AlertManagementDeps & MeteredCalls): Koa.Middleware {
  const router = new Router({ prefix: '/api/v1/organizations/:org' });
  router.use(requireAgentToken(deps.metadata, Date.now, deps.apiCalls));
  // Checked before the organization and project are looked up: a refusal tells nothing.
  router.use(requireRoleOf('admin'));
  const organizationOf = (ctx: Koa.Context): Promise<Organization> =>
    visibleOrganization(deps.metadata, ctx.state.token as AgentToken, ctx.params.org!);
  const writer = async (ctx: Koa.Context) => {
    requireOrganizationWide(ctx);
    return organizationOf(ctx);
  };
  const body = (ctx: Koa.Context) => readJsonBody(ctx.req, MAX_BODY_BYTES);
  const noBody = async (ctx: Koa.Context) => {
    manage.parseInput(NO_BODY, await body(ctx), 'body: this takes none; send no body, or {}');
  };

  router.post('/alert-channels', async (ctx) => {
    noQueryParams(ctx);
    const organization = await writer(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = await manage.createChannel(deps, organization, await body(ctx));
  });
  router.get('/alert-channels', async (ctx) => {
    noQueryParams(ctx);
    const organization = await organizationOf(ctx);
    ctx.body = { channels: (await deps.alerts.listChannels(organization.id)).map(channelView(ctx)) };
  });
  router.get('/alert-channels/:id', async (ctx) => {
    noQueryParams(ctx);
    ctx.body = { channel: channelView(ctx)(await manage.channelOf(deps, await organizationOf(ctx), idParam(ctx))) };
  });
  router.patch('/alert-channels/:id', async (ctx) => {
    noQueryParams(ctx);
    ctx.body = await manage.updateChannel(deps, await writer(ctx), idParam(ctx), await body(ctx));
  });
  router.delete('/alert-channels/:id', async (ctx) => {
    noQueryParams(ctx);
    ctx.body = await manage.deleteChannel(deps, await writer(ctx), idParam(ctx));
  });
  router.get('/alert-channels/:id/secret', async (ctx) => {
    noQueryParams(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await manage.revealChannelSecret(deps, await writer(ctx), idParam(ctx));
  });
  router.post('/alert-channels/:id/rotate', async (ctx) => {
    noQueryParams(ctx);
    const organization = await writer(ctx);
    await noBody(ctx);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = await manage.rotateChannelSecret(deps, organization, idParam(ctx));
  });
  router.post('/alert-channels/:id/test', async (ctx) => {
    noQueryParams(ctx);
    const organization = await writer(ctx);
    await noBody(ctx);
    ctx.status = 202;
    ctx.body = await manage.testChannel(deps, organization, idParam(ctx));
  });
  router.get('/alert-channels/:id/deliveries', async (ctx) => {
    const { limit } = queryParams(ctx, DELIVERIES_QUERY);
    ctx.body = await manage.listChannelDeliveries(deps, await writer(ctx), idParam(ctx), limit);
  });

  const projectOf = (ctx: Koa.Context) => pathProject(deps.metadata, ctx);
  router.post('/projects/:project/alert-rules', async (ctx) => {
    noQueryParams(ctx);
    const { organization, project } = await projectOf(ctx);
    ctx.status = 201;
    ctx.body = await manage.createRule(deps, organization, project, await body(ctx));
  });
  router.get('/projects/:project/alert-rules', async (ctx) => {
    noQueryParams(ctx);
    ctx.body = await manage.listRules(deps, (await projectOf(ctx)).project);
  });
  router.get('/projects/:project/alert-rules/:id', async (ctx) => {
    noQueryParams(ctx);
    const { project } = await projectOf(ctx);
    ctx.body = { rule: manage.ruleJson(await manage.ruleOf(deps, project, idParam(ctx)), project) };
  });
  router.patch('/projects/:project/alert-rules/:id', async (ctx) => {
    noQueryParams(ctx);
    const { organization, project } = await projectOf(ctx);
    ctx.body = await manage.updateRule(deps, organization, project, idParam(ctx), await body(ctx));
  });
  router.delete('/projects/:project/alert-rules/:id', async (ctx) => {
    noQueryParams(ctx);
    ctx.body = await manage.deleteRule(deps, (await projectOf(ctx)).project, idParam(ctx));
  });
  router.post('/projects/:project/alert-rules/:id/test', async (ctx) => {
    noQueryParams(ctx);
    const { organization, project } = await projectOf(ctx);
    await noBody(ctx);
    ctx.status = 202;
    ctx.body = await manage.testRule(deps, organization, project, idParam(ctx));
  });

  return router.routes() as unknown as Koa.Middleware;
}
