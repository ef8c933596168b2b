// get_dsn: the SDK init string of a project (its first active DSN key); admin only.
import { z } from 'zod';
import { DSN_READER_ROLE } from '../../core/auth/roles.ts';
import { NotFoundError } from '../../core/errors.ts';
import { formatDsn } from '../../core/projects/slug.ts';
import { projectSlugInput } from '../tool-kit/issue-views.ts';
import { projectBySlug } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';

export const getDsn = defineTool({
  name: 'get_dsn',
  title: 'Get DSN',
  description: "A project's DSN: the one setting an SDK needs (Sentry.init({ dsn }) or sentry_sdk.init(dsn=...)).",
  minimumRole: DSN_READER_ROLE,
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { project: projectSlugInput },
  outputSchema: {
    project: z.string(),
    dsn: z.string(),
    keys: z.array(z.object({ label: z.string(), dsn: z.string(), active: z.boolean() })),
  },
  async run(input, context) {
    const project = await projectBySlug(context, input.project);
    const keys = (await context.metadata.listProjectKeys(project.id)).map((key) => ({
      label: key.label,
      dsn: formatDsn(context.baseUrl, key.publicKey, project.id),
      active: key.active,
    }));
    const active = keys.find((key) => key.active);
    if (!active) throw new NotFoundError(`project ${project.slug} has no active DSN key: enable one with errata enablekey`);
    return { summary: `DSN of ${project.slug}: ${active.dsn}`, result: { project: project.slug, dsn: active.dsn, keys } };
  },
});
