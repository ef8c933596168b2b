// Minting and revoking agent tokens (`errata_agent_...`). The plaintext exists only in the
// return value of mintAgentToken, to be shown once; the store keeps its SHA-256.
import { isRole, type Role } from '../auth/roles.ts';
import { hashSecret, mintAgentToken, randomBase62, type RandomSource } from '../auth/secrets.ts';
import { NotFoundError, UserInputError } from '../errors.ts';
import type { AgentToken, MetadataStore } from '../ports/metadata-store.ts';
import { findProjectIn, resolveOrganization } from './organizations.ts';
import { checkTokenName } from './token-name.ts';

interface CreateAgentTokenInput {
  role?: string;
  project?: string;
  name?: string;
  organization?: string;
  /** The person making it on the dashboard (their removal or demotion revokes it). */
  createdBy?: number;
}

interface CreatedAgentToken {
  token: AgentToken;
  organizationSlug: string;
  /** The only time the plaintext is available. */
  plaintext: string;
}

export async function createAgentToken(
  metadata: MetadataStore,
  input: CreateAgentTokenInput,
  context: { random?: RandomSource } = {},
): Promise<CreatedAgentToken> {
  const role: Role = input.role === undefined ? 'triage' : parseRole(input.role);
  const organization = await resolveOrganization(metadata, input.organization);
  let projectId: number | null = null;
  if (input.project !== undefined) {
    projectId = (await findProjectIn(metadata, organization, input.project)).id;
  }
  const name = checkTokenName(
    input.name?.trim() || `${role}-${input.project ?? 'org'}-${randomBase62(6, context.random).toLowerCase()}`,
  );
  const plaintext = mintAgentToken(context.random);
  const token = await metadata.createAgentToken({
    organizationId: organization.id,
    projectId,
    name,
    role,
    tokenHash: hashSecret(plaintext),
    ...(input.createdBy !== undefined && { createdBy: input.createdBy }),
  });
  return { token, organizationSlug: organization.slug, plaintext };
}

export async function revokeAgentToken(
  metadata: MetadataStore,
  input: { name: string; organization?: string },
): Promise<AgentToken> {
  const organization = await resolveOrganization(metadata, input.organization);
  const token = await metadata.revokeAgentToken(organization.id, input.name);
  if (!token) throw new NotFoundError(`no live token named "${input.name}": errata listtokens shows them`);
  return token;
}

export async function listAgentTokens(metadata: MetadataStore, input: { organization?: string }): Promise<AgentToken[]> {
  const organization = await resolveOrganization(metadata, input.organization);
  return metadata.listAgentTokens(organization.id);
}

function parseRole(value: string): Role {
  if (!isRole(value)) throw new UserInputError(`unknown role "${value}": use read, triage or admin`);
  return value;
}
