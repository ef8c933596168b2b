// search_logs: a project's structured logs by level, message text, trace id, attribute values
// and time window, newest first. Every record is captured text: all of it is untrusted data.
import { z } from 'zod';
import { LOG_LEVELS } from '../../core/logs/log-record.ts';
import { bounded } from '../bounded.ts';
import { projectSlugInput } from '../tool-kit/issue-views.ts';
import { projectBySlug } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';

export const searchLogs = defineTool({
  name: 'search_logs',
  title: 'Search logs',
  description:
    'Structured logs of one project, newest first: by level, text in the message, traceId (32 hex characters, e.g. from ' +
    'get_issue_context), attribute values (all must match) and the last sinceMinutes (default 60). Pass nextCursor back as cursor.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput,
    level: z.enum(LOG_LEVELS).optional(),
    query: z.string().max(200).optional().describe('text to find in the message'),
    traceId: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, 'a trace id is 32 hex characters')
      .optional(),
    attributes: z
      .record(z.string().min(1).max(200), z.union([z.string().max(500), z.number(), z.boolean()]))
      .optional()
      .describe('attribute name to the value it must have'),
    sinceMinutes: z.number().int().min(1).max(525_600).default(60),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z.string().max(500).optional(),
  },
  outputSchema: {
    project: z.string(),
    count: z.number().int(),
    window: z.object({ since: z.string(), minutes: z.number().int() }),
    nextCursor: z.string().nullable(),
    untrustedData: z.object({
      logs: z.array(
        z.object({
          timestamp: z.string(),
          level: z.string(),
          body: z.unknown(),
          traceId: z.string().nullable(),
          spanId: z.string().nullable(),
          attributes: z.unknown(),
          release: z.string().nullable(),
          environment: z.string().nullable(),
        }),
      ),
    }),
  },
  async run(input, context) {
    const project = await projectBySlug(context, input.project);
    const minutes = Math.min(input.sinceMinutes, context.maxWindowMinutes);
    const since = context.now().getTime() - minutes * 60_000;
    const attributes = Object.fromEntries(Object.entries(input.attributes ?? {}).map(([k, v]) => [k, String(v)]));
    const page = await context.logs.searchLogs({
      projectId: project.id,
      ...(input.level ? { levels: [input.level] } : {}),
      ...(input.query ? { text: input.query } : {}),
      ...(input.traceId ? { traceId: input.traceId.toLowerCase() } : {}),
      attributes,
      since: since / 1000,
      limit: input.limit,
      ...(input.cursor ? { cursor: input.cursor } : {}),
    });
    return {
      summary: `${page.items.length} log record${page.items.length === 1 ? '' : 's'} in ${project.slug} from the last ${minutes} minutes${page.nextCursor ? ' (more: pass nextCursor as cursor)' : ''}.`,
      result: {
        project: project.slug,
        count: page.items.length,
        window: { since: new Date(since).toISOString(), minutes },
        nextCursor: page.nextCursor ?? null,
        untrustedData: {
          logs: page.items.map((log) => ({
            timestamp: new Date(log.timestamp * 1000).toISOString(),
            level: log.level,
            body: bounded(log.body),
            traceId: log.traceId,
            spanId: log.spanId,
            attributes: bounded(log.attributes),
            release: log.release,
            environment: log.environment,
          })),
        },
      },
    };
  },
});
