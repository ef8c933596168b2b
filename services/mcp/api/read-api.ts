// The read API under /api/v1 (mcp role): projects, issues with their latest event, and logs,
// for any agent token of the organization (role read or higher), scoped to the token's project
// when it has one. The dashboard and the MCP tools sit on the same queries. Query parameters are
// strict (query-params.ts): one the endpoint does not take is refused, never ignored.
import Router from '@koa/router';
import type Koa from 'koa';
import { z } from 'zod';
import { DSN_READER_ROLE, roleAtLeast } from '../../core/auth/roles.ts';
import { setOwn } from '../../core/event/coerce.ts';
import { LEVELS } from '../../core/event/level.ts';
import { NotFoundError } from '../../core/errors.ts';
import { LOG_LEVELS, type LogLevel } from '../../core/logs/log-record.ts';
import { pagedWindowStart, readWindowedCursor, windowedCursor } from '../../core/logs/windowed-cursor.ts';
import type { EventStore } from '../../core/ports/event-store.ts';
import type { LogStore } from '../../core/ports/log-store.ts';
import { ISSUE_SORTS } from '../../core/ports/issue-store.ts';
import { ISSUE_STATUSES, type AgentToken, type MetadataStore } from '../../core/ports/metadata-store.ts';
import { parseShortId } from '../../core/projects/short-id.ts';
import { formatDsn } from '../../core/projects/slug.ts';
import { issueFilter } from '../../core/search/issue-search.ts';
import { LOG_SEARCH_LIMITS } from '../../core/search/log-search.ts';
import {
  canSeeProject,
  pathProject,
  requireAgentToken,
  requireRoleOf,
  visibleOrganization,
  type MeteredCalls,
} from '../agent-auth.ts';
import { itemsWithin } from '../items-within.ts';
import { noQueryParams, queryParams, queryShape } from './query-params.ts';
import { eventJson, issueJson, logJson, projectJson } from './serialize.ts';

export interface ReadApiDeps extends MeteredCalls {
  metadata: MetadataStore;
  events: EventStore;
  logs: LogStore;
  baseUrl: string;
  /** The widest log search window, in minutes (the retention period). */
  maxLogWindowMinutes: number;
  now?: () => number;
}

const limit = z.coerce.number().int().min(1).max(100).default(25);
const cursor = z.string().max(500).optional();

// status defaults to unresolved in issueFilter, not here: given beside a query's is:, it must agree.
const issueQuery = queryShape({
  status: z.enum([...ISSUE_STATUSES, 'all']).optional(),
  level: z.enum(LEVELS).optional(),
  /** The search syntax (core/search): free text, is:, level:, environment:, firstRelease:, !key:value. */
  query: z.string().max(200).optional(),
  /** As list_issues: lastSeen (default) lets an issue seen again while paging move past the cursor; firstSeen misses none. */
  sort: z.enum(ISSUE_SORTS).default('lastSeen'),
  limit,
  cursor,
});

/**
 * Characters of log JSON one page carries at most. A record may hold 64 KiB of body and 200
 * attributes of 8 KiB (ingest's limits), so a page of 100 was up to 170 MB, built in memory.
 * Past it the page is the records that fit (at least one), and nextCursor goes on after them.
 */
const LOG_PAGE_BUDGET_CHARS = 4_000_000;

const logQuery = (maxMinutes: number) =>
  queryShape({
    level: z
      .string()
      .optional()
      .transform((value, ctx) => {
        if (!value) return undefined;
        // warning is warn, as search_logs takes it (Python's level name).
        const levels = value
          .split(',')
          .map((l) => l.trim().toLowerCase())
          .map((l) => (l === 'warning' ? 'warn' : l));
        const unknown = levels.filter((l) => !(LOG_LEVELS as readonly string[]).includes(l));
        if (unknown.length > 0) {
          ctx.addIssue({ code: 'custom', message: `unknown level "${unknown[0]}": use ${LOG_LEVELS.join(', ')}` });
          return z.NEVER;
        }
        return levels as LogLevel[];
      }),
    query: z.string().max(LOG_SEARCH_LIMITS.text).optional(),
    traceId: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, 'a trace id is 32 hex characters')
      .optional(),
    sinceMinutes: z.coerce.number().int().min(1).max(maxMinutes).optional(),
    attribute: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .transform((value, ctx) => {
        const entries = value === undefined ? [] : Array.isArray(value) ? value : [value];
        // Each is a condition of the query, as search_logs takes at most 20.
        if (entries.length > LOG_SEARCH_LIMITS.filters) {
          ctx.addIssue({ code: 'custom', message: `${entries.length} attribute filters; at most ${LOG_SEARCH_LIMITS.filters}` });
          return z.NEVER;
        }
        const attributes: Record<string, string> = {};
        for (const entry of entries) {
          const at = entry.indexOf(':');
          if (at <= 0) {
            ctx.addIssue({ code: 'custom', message: `attribute filter "${entry.slice(0, 50)}" must look like key:value` });
            return z.NEVER;
          }
          const [key, wanted] = [entry.slice(0, at), entry.slice(at + 1)];
          // As search_logs bounds them; and one key twice would keep only the last condition.
          if (key.length > LOG_SEARCH_LIMITS.key || wanted.length > LOG_SEARCH_LIMITS.value) {
            ctx.addIssue({
              code: 'custom',
              message: `attribute filter "${key.slice(0, 50)}": keys take at most ${LOG_SEARCH_LIMITS.key} characters, values ${LOG_SEARCH_LIMITS.value}`,
            });
            return z.NEVER;
          }
          if (Object.hasOwn(attributes, key)) {
            ctx.addIssue({
              code: 'custom',
              message: `attribute "${key.slice(0, 50)}" is filtered twice: a record has one value per key, so give each key once`,
            });
            return z.NEVER;
          }
          setOwn(attributes, key, wanted);
        }
        return attributes;
      }),
    limit,
    cursor,
  });

export function readApiRoutes(deps: ReadApiDeps): Koa.Middleware {
  const router = new Router({ prefix: '/api/v1/organizations/:org' });
  const now = deps.now ?? Date.now;
  router.use(requireAgentToken(deps.metadata, now, deps.apiCalls));
  router.use(requireRoleOf('read'));

  router.get('/projects', async (ctx) => {
    noQueryParams(ctx);
    const token = ctx.state.token as AgentToken;
    const organization = await visibleOrganization(deps.metadata, token, ctx.params.org!);
    const projects = (await deps.metadata.listProjects(organization.id)).filter((p) => canSeeProject(token, p));
    const withDsn = roleAtLeast(token.role, DSN_READER_ROLE);
    ctx.body = {
      projects: await Promise.all(
        projects.map(async (project) => {
          const key = withDsn ? (await deps.metadata.listProjectKeys(project.id)).find((k) => k.active) : undefined;
          return projectJson(project, organization.slug, key && formatDsn(deps.baseUrl, key.publicKey, project.id));
        }),
      ),
    };
  });

  router.get('/projects/:project/issues', async (ctx) => {
    const query = queryParams(ctx, issueQuery);
    const filter = issueFilter(query.query, { status: query.status, level: query.level });
    const { project } = await pathProject(deps.metadata, ctx);
    const page = await deps.metadata.listIssues({
      projectId: project.id,
      ...filter,
      sort: query.sort,
      limit: query.limit,
      ...(query.cursor ? { cursor: query.cursor } : {}),
    });
    ctx.body = { issues: page.items.map(issueJson), nextCursor: page.nextCursor ?? null };
  });

  router.get('/issues/:shortId', async (ctx) => {
    noQueryParams(ctx);
    const token = ctx.state.token as AgentToken;
    const organization = await visibleOrganization(deps.metadata, token, ctx.params.org!);
    const parsed = parseShortId(ctx.params.shortId!);
    const notFound = new NotFoundError(`no issue "${ctx.params.shortId!.slice(0, 60)}" is visible to this token`);
    if (!parsed) throw notFound;
    const project = await deps.metadata.findProject(organization.id, parsed.projectSlug);
    if (!project || !canSeeProject(token, project)) throw notFound;
    const issue = await deps.metadata.findIssue(project.id, parsed.number);
    if (!issue) throw notFound;
    const latest = await deps.events.latestEventForIssue(project.id, issue.id);
    ctx.body = { issue: issueJson(issue), latestEvent: latest ? eventJson(latest) : null };
  });

  router.get('/projects/:project/logs', async (ctx) => {
    const query = queryParams(ctx, logQuery(deps.maxLogWindowMinutes));
    const { project } = await pathProject(deps.metadata, ctx);
    const paging = query.cursor === undefined ? undefined : readWindowedCursor(query.cursor);
    const oldest = now() - deps.maxLogWindowMinutes * 60_000;
    // A later page keeps the window's start from the first (windowed-cursor.ts).
    const sinceMs =
      pagedWindowStart(paging?.sinceMs, now(), oldest) ?? now() - (query.sinceMinutes ?? deps.maxLogWindowMinutes) * 60_000;
    const search = {
      projectId: project.id,
      ...(query.level ? { levels: query.level } : {}),
      ...(query.query ? { text: query.query } : {}),
      ...(query.traceId ? { traceId: query.traceId } : {}),
      // By default the whole retention period, and never more: records of days retention has not
      // dropped yet are past it, as search_logs and the Logs page hold them to be.
      since: sinceMs / 1000,
      attributes: query.attribute,
      limit: query.limit,
      ...(paging ? { cursor: paging.store } : {}),
    };
    let page = await deps.logs.searchLogs(search);
    let logs = page.items.map(logJson);
    const fit = itemsWithin(logs, (log) => JSON.stringify(log).length, LOG_PAGE_BUDGET_CHARS);
    if (fit < logs.length) {
      // Asked again for just the records that fit, so nextCursor goes on after the last one sent.
      page = await deps.logs.searchLogs({ ...search, limit: fit });
      logs = page.items.map(logJson);
    }
    ctx.body = {
      logs,
      nextCursor: page.nextCursor === undefined ? null : windowedCursor(sinceMs, page.nextCursor),
      // Set when the search stopped after reading as many records as one page reads (see LogPage).
      searchedTo: page.searchedTo === undefined ? null : new Date(page.searchedTo * 1000).toISOString(),
    };
  });

  return router.routes() as unknown as Koa.Middleware;
}
