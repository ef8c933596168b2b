// search_logs: a project's structured logs by level, message text, trace id, attribute values
// and time window, newest first. Every record is captured text: all of it is untrusted data.
import { z } from 'zod';
import { LOG_LEVELS, type LogLevel, type LogRecord } from '../../core/logs/log-record.ts';
import { pagedWindowStart, readWindowedCursor, windowedCursor } from '../../core/logs/windowed-cursor.ts';
import { UserInputError } from '../../core/errors.ts';
import { COMPARISON_OPERATORS, LOG_ORDERS, type LogQuery } from '../../core/ports/log-store.ts';
import { bounded, DEFAULT_BOUNDS } from '../bounded.ts';
import { itemsWithin } from '../items-within.ts';
import { escapedJsonLength } from '../untrusted-data.ts';
import { projectSlugInput } from '../tool-kit/issue-views.ts';
import { logAttributes } from '../../core/logs/log-attributes.ts';
import { LOG_SEARCH_LIMITS } from '../../core/search/log-search.ts';
import { projectBySlug } from '../tool-kit/scope.ts';
import { isoSeconds } from '../tool-kit/iso-time.ts';
import { asTable, tableSchema } from '../tool-kit/record-table.ts';
import { withoutEmpty } from '../tool-kit/without-empty.ts';
import { defineTool } from '../tool-kit/tool.ts';

const logRow = z.object({
  timestamp: z.string().describe('ISO 8601, to the millisecond'),
  level: z.string(),
  body: z.unknown(),
  // What a record lacks is left out rather than null (tool-kit/without-empty.ts).
  traceId: z.string().optional().describe("absent when the search named the trace (the answer's traceId)"),
  spanId: z.string().optional(),
  attributes: z.record(z.string(), z.unknown()).describe('key: value, SDK bookkeeping left out'),
  release: z.string().optional(),
  environment: z.string().optional(),
});

/**
 * zod's record drops a key named `__proto__` without a word, so the search would run without
 * that filter and answer with more than was asked for: it is refused instead.
 */
function refuseProtoKey(value: unknown, ctx: { addIssue(issue: { code: 'custom'; message: string }): void }): unknown {
  if (value !== null && typeof value === 'object' && Object.hasOwn(value, '__proto__')) {
    ctx.addIssue({
      code: 'custom',
      message:
        'an attribute named __proto__ cannot be searched here; the read API takes it: GET .../logs?attribute=__proto__:value',
    });
  }
  return value;
}

/**
 * Characters of log rows' JSON one answer carries at most, about 50,000 tokens (the answer has
 * them twice: structured, and as the text's JSON). Each record is cut by bounded(), but 200
 * records of large attributes would still be megabytes. Past it, the answer is the records that
 * fit (at least one), with a cursor after the last of them; records that arrive between the two
 * reads may take it a little past.
 */
const ANSWER_BUDGET_CHARS = 200_000;

/** Attribute filters, and comparisons, one search takes: each is a condition of the query. */
const MAX_ATTRIBUTE_FILTERS = LOG_SEARCH_LIMITS.filters;

const isoInstant = z.string().datetime({ offset: true, message: 'an ISO 8601 time, e.g. 2026-01-31T09:30:00Z' });

export const searchLogs = defineTool({
  name: 'search_logs',
  title: 'Search logs',
  description:
    'Structured logs of one project, newest first (sort: oldest for the other way): by level, text in the message, ' +
    'environment, traceId (32 hex characters, e.g. from get_issue_context), attribute values (all must match), ' +
    'comparisons of number attributes (e.g. duration_ms > 250) and the last sinceMinutes (default 60; with a traceId, ' +
    'all that retention keeps) or a from/to window. Attributes come as key: value, without ' +
    "the SDK's own bookkeeping. Pass nextCursor back as cursor, with the same arguments. project may be left out with a " +
    'project-scoped token.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput,
    level: z
      .enum([...LOG_LEVELS, 'warning'])
      .optional()
      .describe('exactly this level; warning is the same as warn'),
    query: z.string().max(LOG_SEARCH_LIMITS.text).optional().describe('text to find in the message'),
    environment: z
      .string()
      .min(1)
      .max(LOG_SEARCH_LIMITS.environment)
      .optional()
      .describe('the environment the SDK sent, exactly'),
    traceId: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, 'a trace id is 32 hex characters')
      .optional(),
    attributes: z
      .preprocess(
        refuseProtoKey,
        z
          .record(
            z.string().min(1).max(LOG_SEARCH_LIMITS.key),
            z.union([z.string().max(LOG_SEARCH_LIMITS.value), z.number(), z.boolean()]),
          )
          .refine((attributes) => Object.keys(attributes).length <= MAX_ATTRIBUTE_FILTERS, {
            message: `at most ${MAX_ATTRIBUTE_FILTERS} attributes, as for comparisons`,
          }),
      )
      .optional()
      .describe('attribute name to the value it must have'),
    comparisons: z
      .array(
        z
          .object({
            attribute: z.string().min(1).max(LOG_SEARCH_LIMITS.key),
            operator: z.enum(COMPARISON_OPERATORS),
            value: z.number(),
          })
          .strict(),
      )
      .max(MAX_ATTRIBUTE_FILTERS)
      .optional()
      .describe('each attribute must hold a number (or text reading as one) that compares so with value'),
    from: isoInstant.optional().describe('ISO 8601 start of the window, instead of sinceMinutes (the Logs page copies these)'),
    to: isoInstant.optional().describe('ISO 8601 end of the window, inclusive; default now'),
    sinceMinutes: z
      .number()
      .int()
      .min(1)
      .max(525_600)
      .optional()
      .describe('default 60, or with a traceId the whole retention period; never more than retention keeps'),
    sort: z.enum(LOG_ORDERS).optional().describe('newest (default) or oldest first'),
    limit: z.number().int().min(1).max(200).default(50),
    cursor: z.string().max(500).optional(),
  },
  outputSchema: {
    project: z.string(),
    count: z.number().int(),
    window: z.object({
      since: z.string().describe('ISO 8601, to the second'),
      until: z.string().optional().describe('present when to was given'),
      minutes: z.number().int(),
    }),
    traceId: z.string().optional().describe('the trace searched, when one was: every record is of it'),
    nextCursor: z.string().optional().describe('present when there are more records to read: pass it back as cursor'),
    searchedTo: z
      .string()
      .optional()
      .describe(
        'present when the search stopped after reading as many records as one page reads, before finding limit matches: the time of the last record read. nextCursor searches on from there',
      ),
    untrustedData: z.object({
      logs: tableSchema(logRow, 'the log records'),
    }),
  },
  async run(input, context) {
    const project = await projectBySlug(context, input.project);
    // A trace is one request: its logs are wherever it happened, so by default look as far as
    // retention keeps them rather than miss an older trace in the last hour.
    const paging = input.cursor === undefined ? undefined : readWindowedCursor(input.cursor);
    const window = logWindow(input, context.now().getTime(), context.maxWindowMinutes, paging?.sinceMs);
    const { since, until, minutes } = window;
    const attributes = Object.fromEntries(Object.entries(input.attributes ?? {}).map(([k, v]) => [k, String(v)]));
    const level: LogLevel | undefined = input.level === 'warning' ? 'warn' : input.level;
    const query: LogQuery = {
      projectId: project.id,
      ...(level ? { levels: [level] } : {}),
      ...(input.query ? { text: input.query } : {}),
      ...(input.environment !== undefined ? { environment: input.environment } : {}),
      ...(input.traceId ? { traceId: input.traceId.toLowerCase() } : {}),
      attributes,
      ...(input.comparisons?.length
        ? { comparisons: input.comparisons.map(({ attribute, operator, value }) => ({ key: attribute, operator, value })) }
        : {}),
      since: since / 1000,
      ...(until !== undefined ? { until: until / 1000 } : {}),
      limit: input.limit,
      ...(input.sort ? { order: input.sort } : {}),
      ...(paging ? { cursor: paging.store } : {}),
    };
    const row = (log: LogRecord, bounds = DEFAULT_BOUNDS): z.infer<typeof logRow> => ({
      timestamp: new Date(log.timestamp * 1000).toISOString(),
      level: log.level,
      body: bounded(log.body, bounds),
      ...withoutEmpty({ traceId: query.traceId ? null : log.traceId, spanId: log.spanId }),
      attributes: bounded(logAttributes(log), bounds) as Record<string, unknown>,
      ...withoutEmpty({ release: log.release, environment: log.environment }),
    });
    let page = await context.logs.searchLogs(query);
    let rows = page.items.map((log) => row(log));
    const fit = itemsWithin(rows, escapedJsonLength, ANSWER_BUDGET_CHARS);
    const cut = fit < rows.length;
    if (cut) {
      // Asked again for just the rows that fit, so nextCursor continues after the last one shown.
      page = await context.logs.searchLogs({ ...query, limit: fit });
      rows = page.items.map((log) => row(log));
    }
    // A page shows at least one record, and one alone could be many times the budget (200
    // attributes of 2,000 characters, each escaped to six): such a record is cut closer.
    if (rows.length === 1 && escapedJsonLength(rows[0]) > ANSWER_BUDGET_CHARS) rows = [row(page.items[0]!, SINGLE_ROW_BOUNDS)];
    const fixed = input.from !== undefined || input.to !== undefined;
    // A from at (or within a minute of) what retention keeps cannot be moved earlier.
    const earlierFrom = since > context.now().getTime() - context.maxWindowMinutes * 60_000 + 60_000;
    // A to more than a minute back leaves records after it unsearched.
    const laterTo = until !== undefined && until < context.now().getTime() - 60_000;
    const span =
      fixed || paging?.sinceMs !== undefined
        ? `from ${isoSeconds(new Date(since))} to ${until === undefined ? 'now' : isoSeconds(new Date(until))}`
        : `from the last ${minutes} minutes`;
    // A window asked for further back than retention keeps is searched from its oldest: said so,
    // as the window's minutes alone did not tell it from what was asked.
    const retention = window.cutToRetention
      ? ` (the window asked for began earlier: retention keeps the last ${context.maxWindowMinutes} minutes)`
      : '';
    const count = `${page.items.length} log record${page.items.length === 1 ? '' : 's'} in ${project.slug} ${span}${retention}`;
    const searchedTo = page.searchedTo === undefined ? undefined : new Date(page.searchedTo * 1000).toISOString();
    const more = searchedTo
      ? ` (stopped after reading the records ${input.sort === 'oldest' ? 'up' : 'back'} to ${searchedTo}, as many as one call reads: pass nextCursor as cursor to search further)`
      : cut
        ? ` (cut short of limit to keep the records near ${ANSWER_BUDGET_CHARS.toLocaleString('en-US')} characters: pass nextCursor as cursor for more)`
        : page.nextCursor
          ? ' (more: pass nextCursor as cursor)'
          : '';
    const empty =
      page.items.length === 0 && !input.cursor && !searchedTo
        ? ` ${widenHint(input, fixed ? { earlierFrom, laterTo } : undefined, minutes, context.maxWindowMinutes)}`
        : '';
    return {
      summary: `${count}${more}.${empty}`,
      result: {
        project: project.slug,
        count: page.items.length,
        window: {
          since: isoSeconds(new Date(since)),
          ...(until !== undefined && { until: isoSeconds(new Date(until)) }),
          minutes,
        },
        ...(query.traceId && { traceId: query.traceId }),
        ...(page.nextCursor && { nextCursor: windowedCursor(since, page.nextCursor) }),
        ...(searchedTo && { searchedTo }),
        untrustedData: { logs: asTable(rows) },
      },
    };
  },
});

const DEFAULT_MINUTES = 60;

/** The bounds of a record too large for the budget alone: 200 characters a value, 20 attributes. */
const SINGLE_ROW_BOUNDS = { maxString: 200, maxList: 5, maxDepth: 12 };

/**
 * The window searched, in milliseconds: from/to when given (from no earlier than retention
 * keeps), else the last sinceMinutes. Minutes are the window's length, rounded up.
 */
function logWindow(
  input: { from?: string | undefined; to?: string | undefined; sinceMinutes?: number | undefined; traceId?: string | undefined },
  now: number,
  maxMinutes: number,
  /** The start a cursor carried from the first page: where a window of the last minutes stays. */
  pagedFrom?: number,
): { since: number; until?: number; minutes: number; cutToRetention?: true } {
  const oldest = now - maxMinutes * 60_000;
  if (input.from === undefined && input.to === undefined) {
    const asked = input.sinceMinutes ?? (input.traceId ? maxMinutes : DEFAULT_MINUTES);
    const minutes = Math.min(asked, maxMinutes);
    const since = pagedWindowStart(pagedFrom, now, oldest);
    if (since !== undefined) return { since, minutes: Math.ceil((now - since) / 60_000) };
    return { since: now - minutes * 60_000, minutes, ...(asked > maxMinutes && { cutToRetention: true as const }) };
  }
  if (input.sinceMinutes !== undefined) {
    throw new UserInputError(
      'give either sinceMinutes or from/to, not both: from/to is a fixed window, sinceMinutes the last minutes',
    );
  }
  const until = input.to === undefined ? undefined : Date.parse(input.to);
  if (until !== undefined && until < oldest) {
    throw new UserInputError(
      `to (${input.to}) is before ${isoSeconds(new Date(oldest))}, the oldest time retention keeps logs for (ERRATA_EVENT_RETENTION_DAYS): nothing that old is kept`,
    );
  }
  // Without from, the start is the last minutes before the first page, as for sinceMinutes:
  // computed again, a page read later skipped the records between the two starts.
  const since = Math.max(
    oldest,
    input.from === undefined
      ? (pagedWindowStart(pagedFrom, now, oldest) ?? now - DEFAULT_MINUTES * 60_000)
      : Date.parse(input.from),
  );
  if (since > now) throw new UserInputError(`from (${input.from}) is in the future: give a time before now`);
  if (until !== undefined && until < since) {
    throw new UserInputError(
      input.from === undefined
        ? `to (${input.to}) is before the window's start, which without from is ${DEFAULT_MINUTES} minutes ago: give from too`
        : `to (${input.to}) is before from: the window must end after it starts`,
    );
  }
  return {
    since,
    ...(until !== undefined && { until }),
    minutes: Math.ceil(((until ?? now) - since) / 60_000),
    ...(input.from !== undefined && Date.parse(input.from) < oldest && { cutToRetention: true as const }),
  };
}

/** What an agent can do about an empty answer: look further back, or ask for less. */
function widenHint(
  input: {
    level?: string | undefined;
    query?: string | undefined;
    environment?: string | undefined;
    traceId?: string | undefined;
    attributes?: Record<string, unknown> | undefined;
    comparisons?: unknown[] | undefined;
  },
  /** A from/to window: whether its start could move earlier within retention, and its end later. */
  fixed: { earlierFrom: boolean; laterTo: boolean } | undefined,
  minutes: number,
  maxMinutes: number,
): string {
  const filters: string[] = (['level', 'query', 'environment', 'traceId'] as const).filter((key) => input[key] !== undefined);
  if (input.attributes && Object.keys(input.attributes).length > 0) filters.push('attributes');
  if (input.comparisons && input.comparisons.length > 0) filters.push('comparisons');
  const widen = fixed
    ? [
        fixed.earlierFrom && `start from earlier (from, back to ${maxMinutes} minutes ago, what retention keeps)`,
        fixed.laterTo && 'end later (to, or leave it out for now)',
      ]
    : [minutes < maxMinutes && `raise sinceMinutes (up to ${maxMinutes}, what retention keeps)`];
  const drop = filters.length > 0 && `drop a filter (${filters.join(', ')})`;
  const ways = [...widen, drop].filter((way): way is string => Boolean(way));
  // Only a search of all that retention keeps, up to now and unfiltered, shows nothing was logged.
  if (ways.length === 0) return `Nothing was logged in the ${maxMinutes} minutes retention keeps: is the SDK sending logs?`;
  return `To widen the search: ${ways.join(', or ')}.`;
}
