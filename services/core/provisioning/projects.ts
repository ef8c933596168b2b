// Creating a project: its slug, its first DSN key, and the DSN users paste into an SDK.
import { mintPublicKey, type RandomSource } from '../auth/secrets.ts';
import type { MetadataStore, Project } from '../ports/metadata-store.ts';
import { assertSlug, formatDsn, slugify } from '../projects/slug.ts';
import { resolveOrganization } from './organizations.ts';
import { UserInputError } from '../errors.ts';

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
  const name = input.name.trim();
  // In words every caller's input has (the CLI's --name, the form's field, create_project's argument).
  if (!name || name.length > 100) throw new UserInputError('a project needs a name of 1 to 100 characters');
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
