// list_issues: a project's issues in one of the store's orders (most recently seen first by
// default), filtered by status, level, environment and a search in the one search syntax (core/search).
import { z } from 'zod';
import {
  issueFacts,
  issueFactsSchema,
  issueFilter,
  issueFilterInput,
  issueText,
  issueTextSchema,
  projectSlugInput,
} from '../tool-kit/issue-views.ts';
import { agreedEnvironment, environmentInput, issueSortInput } from '../tool-kit/issue-list-options.ts';
import { projectBySlug } from '../tool-kit/scope.ts';
import { ISSUE_STATUSES } from '../../core/ports/metadata-store.ts';
import { asTable, tableSchema } from '../tool-kit/record-table.ts';
import { defineTool } from '../tool-kit/tool.ts';

export const listIssues = defineTool({
  name: 'list_issues',
  title: 'List issues',
  description:
    'Issues of one project, most recently seen first unless sort says otherwise (firstSeen, events, users); ' +
    'unresolved ones unless status or an is: term says otherwise; environment narrows to issues seen there. ' +
    'query takes the search syntax: e.g. is:resolved level:error environment:production !firstRelease:1.2 "TypeError: x". ' +
    'Pass nextCursor back as cursor, with the same sort, for the next page; an issue that gets an event meanwhile moves ' +
    'up past the cursor and is not listed again: to miss none, sort by firstSeen (an event dated earlier can only move ' +
    'an issue later in that list, where it may appear twice).',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {
    project: projectSlugInput,
    ...issueFilterInput,
    environment: environmentInput,
    sort: issueSortInput,
    limit: z.number().int().min(1).max(100).default(25),
    cursor: z.string().max(500).optional(),
  },
  outputSchema: {
    project: z.string(),
    status: z
      .enum(ISSUE_STATUSES)
      .optional()
      .describe('the status of every issue listed, when one was asked for; with status all each issue has its own'),
    sort: issueSortInput.removeDefault(),
    issues: tableSchema(issueFactsSchema, 'the issues'),
    nextCursor: z.string().optional().describe('present when there are more: pass it back as cursor'),
    untrustedData: z.object({ issues: tableSchema(issueTextSchema, "the issues' captured text, in the same order") }),
  },
  async run(input, context) {
    const filter = issueFilter(input);
    const environment = agreedEnvironment(input.environment, filter.environment);
    const project = await projectBySlug(context, input.project);
    const page = await context.metadata.listIssues({
      projectId: project.id,
      ...filter,
      ...(environment ? { environment } : {}),
      sort: input.sort,
      limit: input.limit,
      ...(input.cursor ? { cursor: input.cursor } : {}),
    });
    const single = filter.status === 'all' ? undefined : filter.status;
    const more = page.nextCursor ? ' (more: pass nextCursor as cursor)' : '';
    const order = input.sort === 'lastSeen' ? '' : `, by ${input.sort}`;
    return {
      summary: `${page.items.length} ${filter.status === 'all' ? '' : `${filter.status} `}issue${page.items.length === 1 ? '' : 's'} in ${project.slug}${order}${more}.`,
      result: {
        project: project.slug,
        ...(single && { status: single }),
        sort: input.sort,
        issues: asTable(page.items.map((issue) => issueFacts(issue, { withoutStatus: single !== undefined }))),
        ...(page.nextCursor && { nextCursor: page.nextCursor }),
        untrustedData: { issues: asTable(page.items.map(issueText)) },
      },
    };
  },
});
