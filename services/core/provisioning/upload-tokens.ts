// Minting and revoking source map upload tokens (`errata_...`), one project each. As with
// agent tokens, the plaintext exists only in the return value of createUploadToken.
import { hashSecret, mintUploadToken, randomBase62, type RandomSource } from '../auth/secrets.ts';
import { NotFoundError } from '../errors.ts';
import type { MetadataStore, UploadToken } from '../ports/metadata-store.ts';
import { findProjectIn, resolveOrganization } from './organizations.ts';
import { checkTokenName } from './token-name.ts';

interface CreatedUploadToken {
  token: UploadToken;
  organizationSlug: string;
  /** The only time the plaintext is available. */
  plaintext: string;
}

export async function createUploadToken(
  metadata: MetadataStore,
  input: { project: string; name?: string; organization?: string; createdBy?: number },
  context: { random?: RandomSource } = {},
): Promise<CreatedUploadToken> {
  const organization = await resolveOrganization(metadata, input.organization);
  const project = await findProjectIn(metadata, organization, input.project);
  const name = checkTokenName(input.name?.trim() || `upload-${project.slug}-${randomBase62(6, context.random).toLowerCase()}`);
  const plaintext = mintUploadToken(context.random);
  const token = await metadata.createUploadToken({
    organizationId: organization.id,
    projectId: project.id,
    name,
    tokenHash: hashSecret(plaintext),
    ...(input.createdBy !== undefined && { createdBy: input.createdBy }),
  });
  return { token, organizationSlug: organization.slug, plaintext };
}

export async function revokeUploadToken(
  metadata: MetadataStore,
  input: { name: string; organization?: string },
): Promise<UploadToken> {
  const organization = await resolveOrganization(metadata, input.organization);
  const token = await metadata.revokeUploadToken(organization.id, input.name);
  if (!token) throw new NotFoundError(`no live upload token named "${input.name}": errata listuploadtokens shows them`);
  return token;
}

/**
 * Revokes a live upload token of this project only (the dashboard's project page, the
 * management API's project path): a token of another project is "not found" here, so neither
 * can reach past the project it names.
 */
export async function revokeProjectUploadToken(
  metadata: MetadataStore,
  project: { organizationId: number; id: number; slug: string },
  name: string,
): Promise<UploadToken> {
  const revoked = await metadata.revokeUploadToken(project.organizationId, name, project.id);
  if (!revoked) throw new NotFoundError(`no live upload token named "${name.slice(0, 100)}" in project ${project.slug}`);
  return revoked;
}

export async function listUploadTokens(metadata: MetadataStore, input: { organization?: string }): Promise<UploadToken[]> {
  const organization = await resolveOrganization(metadata, input.organization);
  return metadata.listUploadTokens(organization.id);
}

/** An upload token as the CLI and the management API show it (never its secret). */
export function uploadTokenJson(token: UploadToken) {
  return {
    name: token.name,
    project: token.projectSlug,
    createdAt: token.createdAt.toISOString(),
    revokedAt: token.revokedAt?.toISOString() ?? null,
  };
}

/** What to run once the environment is set, from the folder holding the build's output. */
// --wait: without it sentry-cli exits 0 once the files are sent, before the server has stored
// them ("processing pending"), and never hears of a bundle that failed to assemble.
export const UPLOAD_COMMAND = 'sentry-cli sourcemaps inject ./dist && sentry-cli sourcemaps upload --wait ./dist';

/** The environment the upload tools read (sentry-cli and the bundler plugins). */
export function uploadToolEnvironment(baseUrl: string, projectSlug: string, plaintext: string): string[] {
  return [`SENTRY_URL=${baseUrl}`, `SENTRY_AUTH_TOKEN=${plaintext}`, 'SENTRY_ORG=errata', `SENTRY_PROJECT=${projectSlug}`];
}
