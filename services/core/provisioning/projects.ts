// Creating a project (its slug, its first DSN key, and the DSN users paste into an SDK), listing
// them, renaming and deleting one.
import { mintPublicKey, type RandomSource } from '../auth/secrets.ts';
import type { MetadataStore, Project } from '../ports/metadata-store.ts';
import { assertSlug, formatDsn, slugify } from '../projects/slug.ts';
import { resolveOrganization } from './organizations.ts';
import { NotFoundError, UserInputError } from '../errors.ts';

interface CreateProjectInput {
  name: string;
  slug?: string;
  organization?: string;
}

interface CreatedProject {
  project: Project;
  organizationSlug: string;
  publicKey: string;
  dsn: string;
}

export async function createProject(
  metadata: MetadataStore,
  input: CreateProjectInput,
  context: { baseUrl: string; random?: RandomSource },
): Promise<CreatedProject> {
  const name = projectName(input.name);
  const slug = assertSlug(
    input.slug ?? slugify(name),
    input.slug ? 'slug' : 'slug derived from the name (give a slug of its own)',
  );
  const organization = await resolveOrganization(metadata, input.organization);
  const publicKey = mintPublicKey(context.random);
  const { project } = await metadata.createProject(
    { organizationId: organization.id, slug, name },
    { publicKey, label: 'Default' },
  );
  return { project, organizationSlug: organization.slug, publicKey, dsn: formatDsn(context.baseUrl, publicKey, project.id) };
}

/** A name as typed, trimmed; in words every caller's input has (the CLI's --name, the form's field, create_project's argument). */
function projectName(typed: string): string {
  const name = typed.trim();
  if (!name || name.length > 100) throw new UserInputError('a project needs a name of 1 to 100 characters');
  return name;
}

/** Gives the project another name. Its slug stays: issue ids, links, the API and upload settings use it. */
export async function renameProject(metadata: MetadataStore, project: Project, typed: string): Promise<Project> {
  const renamed = await metadata.renameProject(project.id, projectName(typed));
  if (!renamed) throw new NotFoundError(`no project "${project.slug}": it was deleted`);
  return renamed;
}

/** Every project of the organization with its DSNs (one per key). */
export async function listProjectsWithDsns(
  metadata: MetadataStore,
  input: { organization?: string },
  context: { baseUrl: string },
): Promise<Array<{ project: Project; dsns: Array<{ dsn: string; active: boolean; label: string }> }>> {
  const organization = await resolveOrganization(metadata, input.organization);
  const projects = await metadata.listProjects(organization.id);
  return Promise.all(
    projects.map(async (project) => ({
      project,
      dsns: (await metadata.listProjectKeys(project.id)).map((key) => ({
        dsn: formatDsn(context.baseUrl, key.publicKey, project.id),
        active: key.active,
        label: key.label,
      })),
    })),
  );
}

/**
 * What deleting a project does, in the words the CLI and the API answer with. The dispatcher's
 * purge (dispatcher/project-purge.ts) comes within a minute once LATE_EVENTS_MS has passed.
 */
export const PROJECT_DELETED =
  'its issues, DSN keys, alert rules, release records and project tokens are gone now, and ingest refuses its DSN keys ' +
  '(in a cluster within 30 seconds); its stored events, logs and source maps are erased within 15 minutes of the delete ' +
  'while the server (in a cluster, a dispatcher) runs';

/**
 * Deletes the project (TenancyStore.deleteProject); its slug is free again at once. Returns the
 * public keys it had, which the caller tells ingest's key cache about.
 */
export async function deleteProject(metadata: MetadataStore, project: Project, now: Date): Promise<{ publicKeys: string[] }> {
  const deleted = await metadata.deleteProject(project.id, now);
  if (!deleted) throw new NotFoundError(`no project "${project.slug}": it was deleted already`);
  return deleted;
}
