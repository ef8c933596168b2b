// A self-hosted instance has one organization, created the first time anything opens the data
// directory (slug from ERRATA_ORGANIZATION, "default" unless set).
import type { MetadataStore, Organization } from '../core/ports/metadata-store.ts';

export async function ensureFirstOrganization(
  metadata: MetadataStore,
  slug: string,
): Promise<{ organization: Organization; created: boolean }> {
  const existing = await metadata.listOrganizations();
  if (existing.length > 0) return { organization: existing.find((o) => o.slug === slug) ?? existing[0]!, created: false };
  const name = slug === 'default' ? 'Default' : slug;
  return { organization: await metadata.ensureOrganization(slug, name), created: true };
}
