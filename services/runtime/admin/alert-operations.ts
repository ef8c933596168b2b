// The alert admin operations behind `errata createchannel | createrule | ...`: the management
// API's channel and rule operations (core/alerts/alert-management.ts), on the organization the
// CLI resolves (--organization, needed only when the instance has several).
import { z } from 'zod';
import * as manage from '../../core/alerts/alert-management.ts';
import { findProjectIn, resolveOrganization } from '../../core/provisioning/organizations.ts';
import type { Organization } from '../../core/ports/metadata-store.ts';
import type { AdminContext } from './operations.ts';

const organization = z.string().min(1).max(50).optional();
const id = z.number().int().positive();

const deps = (ctx: AdminContext): manage.AlertManagementDeps => ({
  alerts: ctx.alerts,
  secrets: ctx.secrets,
  metadata: ctx.metadata,
  baseUrl: ctx.baseUrl,
  webhookAllowHosts: ctx.webhookAllowHosts,
});
const organizationOf = (ctx: AdminContext, slug: string | undefined) => resolveOrganization(ctx.metadata, slug);
async function projectOf(ctx: AdminContext, input: { project: string; organization?: string }) {
  const org = await organizationOf(ctx, input.organization);
  return { organization: org, project: await findProjectIn(ctx.metadata, org, input.project) };
}

/** Channel operations take `{id, organization?}`; the rest of the input is the change. */
const onChannel = z.object({ id, organization });

/** An operation on one channel that needs nothing but its id. */
const onOneChannel = (
  operate: (deps: manage.AlertManagementDeps, organization: Organization, id: number) => Promise<object>,
) => ({
  input: onChannel,
  async run(ctx: AdminContext, input: { id: number; organization?: string }) {
    return operate(deps(ctx), await organizationOf(ctx, input.organization), input.id);
  },
});
const onRule = z.object({ id, project: z.string().min(1), organization });

export const ALERT_OPERATIONS = {
  createchannel: {
    input: z.object({ name: z.string(), url: z.string(), organization }),
    async run(ctx: AdminContext, { organization: slug, ...fields }: { name: string; url: string; organization?: string }) {
      return manage.createChannel(deps(ctx), await organizationOf(ctx, slug), { ...fields, type: 'webhook' });
    },
  },
  listchannels: {
    input: z.object({ organization }),
    async run(ctx: AdminContext, input: { organization?: string }) {
      const org = await organizationOf(ctx, input.organization);
      return { channels: (await ctx.alerts.listChannels(org.id)).map(manage.channelJson) };
    },
  },
  updatechannel: {
    input: onChannel.extend({ change: z.record(z.string(), z.unknown()) }),
    async run(ctx: AdminContext, input: { id: number; change: Record<string, unknown>; organization?: string }) {
      return manage.updateChannel(deps(ctx), await organizationOf(ctx, input.organization), input.id, input.change);
    },
  },
  deletechannel: onOneChannel(manage.deleteChannel),
  revealchannelsecret: onOneChannel(manage.revealChannelSecret),
  rotatechannelsecret: onOneChannel(manage.rotateChannelSecret),
  testchannel: onOneChannel(manage.testChannel),
  listdeliveries: {
    input: onChannel.extend({ limit: z.number().int().min(1).max(manage.MAX_LISTED_DELIVERIES).optional() }),
    async run(ctx: AdminContext, input: { id: number; limit?: number; organization?: string }) {
      return manage.listChannelDeliveries(deps(ctx), await organizationOf(ctx, input.organization), input.id, input.limit);
    },
  },
  createrule: {
    input: z.object({ project: z.string().min(1), rule: z.record(z.string(), z.unknown()), organization }),
    async run(ctx: AdminContext, input: { project: string; rule: Record<string, unknown>; organization?: string }) {
      const { organization: org, project } = await projectOf(ctx, input);
      return manage.createRule(deps(ctx), org, project, input.rule);
    },
  },
  listrules: {
    input: z.object({ project: z.string().min(1), organization }),
    async run(ctx: AdminContext, input: { project: string; organization?: string }) {
      return manage.listRules(deps(ctx), (await projectOf(ctx, input)).project);
    },
  },
  updaterule: {
    input: onRule.extend({ change: z.record(z.string(), z.unknown()) }),
    async run(ctx: AdminContext, input: { id: number; project: string; change: Record<string, unknown>; organization?: string }) {
      const { organization: org, project } = await projectOf(ctx, input);
      return manage.updateRule(deps(ctx), org, project, input.id, input.change);
    },
  },
  deleterule: {
    input: onRule,
    async run(ctx: AdminContext, input: { id: number; project: string; organization?: string }) {
      return manage.deleteRule(deps(ctx), (await projectOf(ctx, input)).project, input.id);
    },
  },
  testrule: {
    input: onRule,
    async run(ctx: AdminContext, input: { id: number; project: string; organization?: string }) {
      const { organization: org, project } = await projectOf(ctx, input);
      return manage.testRule(deps(ctx), org, project, input.id);
    },
  },
} as const;
