// create_project: a project and its default DSN key in one call; organization-wide admin only.
import { z } from 'zod';
import { createProject as create } from '../../core/provisioning/projects.ts';
import { GUIDE_PLATFORMS, installGuideUrl } from '../../core/projects/install-guide.ts';
import { defineTool } from '../tool-kit/tool.ts';

const PROJECT_PLATFORMS = ['javascript-browser', 'node', 'python', 'go', 'php', 'ruby', 'other'] as const;

export const createProject = defineTool({
  name: 'create_project',
  title: 'Create project',
  description:
    'Create a project and mint its default DSN key; returns the DSN to put in the SDK init and the URLs of the ' +
    'personalized install guides (node, python, browser), whatever platform says: `installGuide` is the one for it.',
  minimumRole: 'admin',
  organizationWideOnly: true,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  inputSchema: {
    name: z.string().min(1).max(100),
    slug: z.string().max(50).optional().describe('lowercase letters, digits and dashes; derived from the name when left out'),
    platform: z.enum(PROJECT_PLATFORMS).optional().describe('picks the install guide'),
  },
  outputSchema: {
    project: z.object({ slug: z.string(), name: z.string(), id: z.number().int(), organization: z.string() }),
    dsn: z.string(),
    installGuide: z
      .string()
      .nullable()
      .describe('the guide for the platform given; null without one or for a platform that has none'),
    installGuides: z.object({ node: z.string(), python: z.string(), browser: z.string() }),
  },
  async run(input, context) {
    const created = await create(
      context.metadata,
      { name: input.name, ...(input.slug ? { slug: input.slug } : {}), organization: context.organization.slug },
      { baseUrl: context.baseUrl },
    );
    const guide = input.platform ? GUIDE_PLATFORMS.find((g) => g.projectPlatform === input.platform) : undefined;
    const { project } = created;
    return {
      summary: `Created project ${project.slug}; its DSN is ${created.dsn}.`,
      result: {
        project: { slug: project.slug, name: project.name, id: project.id, organization: created.organizationSlug },
        dsn: created.dsn,
        installGuide: guide ? installGuideUrl(context.baseUrl, created.organizationSlug, project.slug, guide.name) : null,
        // Every guide, whatever platform said: an agent often learns the stack only after creating the project.
        installGuides: {
          node: installGuideUrl(context.baseUrl, created.organizationSlug, project.slug, 'node'),
          python: installGuideUrl(context.baseUrl, created.organizationSlug, project.slug, 'python'),
          browser: installGuideUrl(context.baseUrl, created.organizationSlug, project.slug, 'browser'),
        },
      },
    };
  },
});
