// What a token may see, for the tools: its organization, and only its project when it is
// project-scoped. Anything outside looks exactly like something that does not exist.
import { NotFoundError } from '../../core/errors.ts';
import type { Issue, Project } from '../../core/ports/metadata-store.ts';
import { parseShortId } from '../../core/projects/short-id.ts';
import { canSeeProject } from '../agent-auth.ts';
import type { ToolContext } from './tool.ts';

export async function visibleProjects(context: ToolContext): Promise<Project[]> {
  const projects = await context.metadata.listProjects(context.organization.id);
  return projects.filter((project) => canSeeProject(context.token, project));
}

export async function projectBySlug(context: ToolContext, slug: string): Promise<Project> {
  const project = await context.metadata.findProject(context.organization.id, slug);
  if (!project || !canSeeProject(context.token, project)) {
    throw new NotFoundError(`no project "${slug.slice(0, 60)}" is visible to this token: list_projects shows the ones that are`);
  }
  return project;
}

export async function issueByShortId(context: ToolContext, shortId: string): Promise<{ project: Project; issue: Issue }> {
  const notFound = new NotFoundError(
    `no issue "${shortId.slice(0, 60)}" is visible to this token: short ids look like WEB-APP-12; list_issues shows them`,
  );
  const parsed = parseShortId(shortId);
  if (!parsed) throw notFound;
  const project = await context.metadata.findProject(context.organization.id, parsed.projectSlug);
  if (!project || !canSeeProject(context.token, project)) throw notFound;
  const issue = await context.metadata.findIssue(project.id, parsed.number);
  if (!issue) throw notFound;
  return { project, issue };
}
