// Which organization an admin command acts on. A self-hosted instance normally has exactly one,
// which is then implied; with several, the caller must name it.
import { NotFoundError, UserInputError } from '../errors.ts';
import type { MetadataStore, Organization, Project } from '../ports/metadata-store.ts';

export async function resolveOrganization(metadata: MetadataStore, slug: string | undefined): Promise<Organization> {
  if (slug) {
    const organization = await metadata.findOrganization(slug);
    if (!organization) throw new NotFoundError(`no organization "${slug}": check the slug (errata listprojects shows it)`);
    return organization;
  }
  const organizations = await metadata.listOrganizations();
  if (organizations.length === 1) return organizations[0]!;
  if (organizations.length === 0)
    throw new NotFoundError('this instance has no organization yet: start it once with `errata start`');
  throw new UserInputError(
    `this instance has ${organizations.length} organizations: pass --organization <slug> (one of: ${organizations.map((o) => o.slug).join(', ')})`,
  );
}

/** The project of that organization named by an admin command's --project. */
export async function findProjectIn(metadata: MetadataStore, organization: Organization, slug: string): Promise<Project> {
  const project = await metadata.findProject(organization.id, slug);
  if (!project) throw new NotFoundError(`no project "${slug}" in organization "${organization.slug}": check --project`);
  return project;
}
