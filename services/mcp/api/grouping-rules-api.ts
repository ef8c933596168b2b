// A project's grouping rules through the management API (mcp role), for admin agent tokens:
//   GET /api/v1/organizations/{org}/projects/{project}/grouping-rules
//   PUT the same path with {"fingerprintRules": "...", "stackTraceRules": "..."} (either or both)
// The texts are Sentry's fingerprint-rule and stack-trace-rule syntax, returned as written; a bad
// rule is a 400 naming its line and column. Same operation as `errata setgroupingrules`.
import Router from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import type { MetadataStore } from '../../core/ports/metadata-store.ts';
import { setGroupingRules } from '../../core/provisioning/grouping-rules.ts';
import { strictObject } from '../../core/strict-object.ts';
import { readJsonBody } from '../../runtime/json-body.ts';
import { pathProject, requireAgentToken, requireRoleOf, type MeteredCalls } from '../agent-auth.ts';
import { noQueryParams } from './query-params.ts';

const putBody = strictObject({ fingerprintRules: z.string().optional(), stackTraceRules: z.string().optional() });

export function groupingRulesApiRoutes(deps: { metadata: MetadataStore } & MeteredCalls): Koa.Middleware {
  const router = new Router({ prefix: '/api/v1/organizations/:org/projects/:project/grouping-rules' });
  router.use(requireAgentToken(deps.metadata, Date.now, deps.apiCalls));
  // Checked before the organization and project are looked up: a refusal tells nothing.
  router.use(requireRoleOf('admin'));

  router.get('/', async (ctx) => {
    noQueryParams(ctx);
    const { project } = await pathProject(deps.metadata, ctx);
    ctx.body = await deps.metadata.getGroupingRules(project.id);
  });

  router.put('/', async (ctx) => {
    noQueryParams(ctx);
    const { project } = await pathProject(deps.metadata, ctx);
    const parsed = putBody.safeParse((await readJsonBody(ctx.req, 256 * 1024)) ?? {});
    if (!parsed.success) {
      throw new UserInputError(
        `invalid body: ${parsed.error.issues[0]!.message}; send {"fingerprintRules": "<text>", "stackTraceRules": "<text>"} (either or both)`,
      );
    }
    ctx.body = await setGroupingRules(deps.metadata, project.id, parsed.data);
  });

  return router.routes() as unknown as Koa.Middleware;
}
