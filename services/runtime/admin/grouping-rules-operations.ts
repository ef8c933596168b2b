// The admin operations behind `errata getgroupingrules | setgroupingrules`: a project's
// fingerprint rules and stack-trace rules (Sentry's text syntax), the same operation as the
// management API's /grouping-rules (core/provisioning/grouping-rules.ts).
import { z } from 'zod';
import { findProjectIn, resolveOrganization } from '../../core/provisioning/organizations.ts';
import { setGroupingRules } from '../../core/provisioning/grouping-rules.ts';
import type { AdminContext } from './operations.ts';

const organization = z.string().min(1).max(50).optional();

async function projectOf(ctx: AdminContext, input: { project: string; organization?: string }) {
  return findProjectIn(ctx.metadata, await resolveOrganization(ctx.metadata, input.organization), input.project);
}

export const GROUPING_RULES_OPERATIONS = {
  getgroupingrules: {
    input: z.object({ project: z.string().min(1), organization }),
    async run(ctx: AdminContext, input: { project: string; organization?: string }) {
      const project = await projectOf(ctx, input);
      return { project: project.slug, ...(await ctx.metadata.getGroupingRules(project.id)) };
    },
  },
  setgroupingrules: {
    input: z.object({
      project: z.string().min(1),
      organization,
      fingerprintRules: z.string().optional(),
      stackTraceRules: z.string().optional(),
    }),
    async run(
      ctx: AdminContext,
      input: { project: string; organization?: string; fingerprintRules?: string; stackTraceRules?: string },
    ) {
      const project = await projectOf(ctx, input);
      const texts = {
        ...(input.fingerprintRules !== undefined ? { fingerprintRules: input.fingerprintRules } : {}),
        ...(input.stackTraceRules !== undefined ? { stackTraceRules: input.stackTraceRules } : {}),
      };
      return { project: project.slug, ...(await setGroupingRules(ctx.metadata, project.id, texts)) };
    },
  },
} as const;
