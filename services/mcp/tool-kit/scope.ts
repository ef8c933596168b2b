// What a token may see, for the tools: its organization, and only its project when it is
// project-scoped. Anything outside looks exactly like something that does not exist.
import { NotFoundError, UserInputError } from '../../core/errors.ts';
import type { Issue, Project } from '../../core/ports/metadata-store.ts';
import { formatShortId, parseShortId } from '../../core/projects/short-id.ts';
import { canSeeProject } from '../agent-auth.ts';
import type { ToolContext } from './tool.ts';

export async function visibleProjects(context: ToolContext): Promise<Project[]> {
  const projects = await context.metadata.listProjects(context.organization.id);
  return projects.filter((project) => canSeeProject(context.token, project));
}

/**
 * The project a tool call names. A project-scoped token may leave it out (there is only one it
 * could mean); an explicit slug is checked as always, so one outside the scope is refused.
 */
export async function projectBySlug(context: ToolContext, slug: string | undefined): Promise<Project> {
  if (slug === undefined) {
    const scoped = context.token.projectSlug;
    if (scoped === null) {
      throw new UserInputError('project is required for an organization-wide token: pass a slug list_projects shows');
    }
    slug = scoped;
  }
  const project = await context.metadata.findProject(context.organization.id, slug);
  if (!project || !canSeeProject(context.token, project)) {
    throw new NotFoundError(`no project "${slug.slice(0, 60)}" is visible to this token: list_projects shows the ones that are`);
  }
  return project;
}

export async function issueByShortId(context: ToolContext, shortId: string): Promise<{ project: Project; issue: Issue }> {
  const parsed = parseShortId(shortId);
  const found = parsed && (await context.metadata.findProject(context.organization.id, parsed.projectSlug));
  const project = found && canSeeProject(context.token, found) ? found : undefined;
  const issue = parsed && project && (await context.metadata.findIssue(project.id, parsed.number));
  if (project && issue) return { project, issue };
  throw new NotFoundError(
    `no issue "${shortId.slice(0, 60)}" is visible to this token: short ids look like WEB-APP-12; list_issues shows them` +
      (await notFoundHint(context, project, parsed !== undefined)),
  );
}

/**
 * What puts a missed short id right without another call. A project-scoped token hears about
 * its own project whatever it named, so a project outside its scope and one that does not exist
 * get the same answer; an organization-wide token sees every project, so an unknown prefix may
 * be called that.
 */
async function notFoundHint(context: ToolContext, project: Project | undefined, parsed: boolean): Promise<string> {
  if (project) return `; ${await newestIssueHint(context, project)}`;
  const scoped = context.token.projectSlug;
  if (scoped !== null) {
    const own = await context.metadata.findProject(context.organization.id, scoped);
    return own ? `; this token sees only project ${own.slug}: ${await newestIssueHint(context, own)}` : '';
  }
  return parsed
    ? "; no project has that prefix: list_projects shows the projects, a short id's prefix being its project's slug in capitals"
    : '';
}

/**
 * For a short id whose project the token sees but whose number is unknown: the project's prefix
 * and newest issue, so a mistyped or stale number is put right without another call.
 */
async function newestIssueHint(context: ToolContext, project: Project): Promise<string> {
  const page = await context.metadata.listIssues({ projectId: project.id, status: 'all', sort: 'firstSeen', limit: 1 });
  const prefix = `${formatShortId(project.slug, 1).slice(0, -1)}<n>`;
  const newest = page.items[0];
  return newest
    ? `project ${project.slug}'s are ${prefix}, its newest ${newest.shortId}`
    : `project ${project.slug}'s are ${prefix}, and it has no issues yet`;
}
