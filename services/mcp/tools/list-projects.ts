// list_projects: every project the token can see (one, for a project-scoped token).
import { z } from 'zod';
import { visibleProjects } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';

export const listProjects = defineTool({
  name: 'list_projects',
  title: 'List projects',
  description:
    'Every project visible to the token: all of the organization for an organization-wide token, only its own for a project-scoped one.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: {},
  outputSchema: {
    organization: z.string(),
    projects: z.array(z.object({ slug: z.string(), name: z.string(), id: z.number().int(), dateCreated: z.string() })),
  },
  async run(_input, context) {
    const projects = await visibleProjects(context);
    return {
      summary: `${projects.length} project${projects.length === 1 ? '' : 's'}: ${projects.map((p) => p.slug).join(', ') || 'none yet (create_project makes one)'}.`,
      result: {
        organization: context.organization.slug,
        projects: projects.map((p) => ({ slug: p.slug, name: p.name, id: p.id, dateCreated: p.createdAt.toISOString() })),
      },
    };
  },
});
