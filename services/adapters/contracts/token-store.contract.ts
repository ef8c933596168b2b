// The TokenStore contract (agent and upload tokens; a slice of the MetadataStore): every adapter
// must pass these tests, run against the real database, with a TenancyStore over the same
// database for the organizations and projects the tokens belong to.
import { beforeAll, describe, expect, it } from 'vitest';
import { ConflictError } from '../../core/errors.ts';
import type { TenancyStore } from '../../core/ports/tenancy-store.ts';
import type { TokenStore } from '../../core/ports/token-store.ts';
import * as fixtures from './metadata-fixtures.ts';
import { unique } from './metadata-fixtures.ts';

export function describeTokenStoreContract(
  name: string,
  open: () => Promise<{ tokens: TokenStore; tenancy: TenancyStore }>,
): void {
  describe(`TokenStore contract: ${name}`, () => {
    let store: TokenStore;
    let tenancy: TenancyStore;
    beforeAll(async () => {
      ({ tokens: store, tenancy } = await open());
    });
    const orgWithProject = (slug?: string) => fixtures.orgWithProject(tenancy, slug);

    it('stores agent tokens by hash, revokes them, and lets a revoked name be reused', async () => {
      const { org, project } = await orgWithProject();
      const token = await store.createAgentToken({
        organizationId: org.id,
        projectId: project.id,
        name: 'ci',
        role: 'read',
        tokenHash: `h-${unique()}`,
      });
      expect(token).toMatchObject({ name: 'ci', role: 'read', projectId: project.id, projectSlug: 'web', revokedAt: null });
      const hash = `h-${unique()}`;
      await expect(
        store.createAgentToken({ organizationId: org.id, projectId: null, name: 'ci', role: 'admin', tokenHash: hash }),
      ).rejects.toBeInstanceOf(ConflictError);
      const orgWide = await store.createAgentToken({
        organizationId: org.id,
        projectId: null,
        name: 'ops',
        role: 'admin',
        tokenHash: hash,
      });
      expect((await store.findAgentToken(hash))?.id).toBe(orgWide.id);
      expect((await store.revokeAgentToken(org.id, 'ops'))?.revokedAt).toBeInstanceOf(Date);
      expect(await store.findAgentToken(hash)).toBeUndefined();
      expect(await store.revokeAgentToken(org.id, 'ops')).toBeUndefined();
      await store.createAgentToken({
        organizationId: org.id,
        projectId: null,
        name: 'ops',
        role: 'triage',
        tokenHash: `h-${unique()}`,
      });
      expect((await store.listAgentTokens(org.id)).map((t) => [t.name, t.revokedAt === null])).toEqual([
        ['ci', true],
        ['ops', false],
        ['ops', true],
      ]);
    });

    it('records a use at most once a minute, never moving back', async () => {
      const { org } = await orgWithProject();
      const hash = `h-${unique()}`;
      const token = await store.createAgentToken({
        organizationId: org.id,
        projectId: null,
        name: 'busy',
        role: 'read',
        tokenHash: hash,
      });
      expect(token.lastUsedAt).toBeNull();
      const first = new Date('2026-03-01T10:00:00Z');
      await store.markAgentTokenUsed(token.id, first);
      expect((await store.findAgentToken(hash))?.lastUsedAt?.getTime()).toBe(first.getTime());
      // Within the minute: kept as it was.
      await store.markAgentTokenUsed(token.id, new Date(first.getTime() + 59_000));
      expect((await store.findAgentToken(hash))?.lastUsedAt?.getTime()).toBe(first.getTime());
      // An older time never replaces a newer one.
      await store.markAgentTokenUsed(token.id, new Date(first.getTime() - 3_600_000));
      expect((await store.findAgentToken(hash))?.lastUsedAt?.getTime()).toBe(first.getTime());
      const later = new Date(first.getTime() + 60_000);
      await store.markAgentTokenUsed(token.id, later);
      expect((await store.listAgentTokens(org.id)).map((t) => t.lastUsedAt?.getTime())).toEqual([later.getTime()]);
    });

    it('stores upload tokens by hash for one project, revokes them, and keeps them per organization', async () => {
      const { org, project } = await orgWithProject();
      const { org: other, project: otherProject } = await orgWithProject();
      const hash = `u-${unique()}`;
      const token = await store.createUploadToken({ organizationId: org.id, projectId: project.id, name: 'ci', tokenHash: hash });
      expect(token).toMatchObject({
        name: 'ci',
        projectId: project.id,
        projectSlug: 'web',
        organizationId: org.id,
        revokedAt: null,
      });
      expect((await store.findUploadToken(hash))?.id).toBe(token.id);
      // Another table: an agent token lookup never finds it.
      expect(await store.findAgentToken(hash)).toBeUndefined();
      await expect(
        store.createUploadToken({ organizationId: org.id, projectId: project.id, name: 'ci', tokenHash: `u-${unique()}` }),
      ).rejects.toBeInstanceOf(ConflictError);
      await store.createUploadToken({
        organizationId: other.id,
        projectId: otherProject.id,
        name: 'ci',
        tokenHash: `u-${unique()}`,
      });
      expect(await store.revokeUploadToken(other.id, 'nope')).toBeUndefined();
      // Named with another project, a live token stays: the project is checked in the same statement.
      expect(await store.revokeUploadToken(org.id, 'ci', otherProject.id)).toBeUndefined();
      expect(await store.findUploadToken(hash)).toMatchObject({ name: 'ci', revokedAt: null });
      expect((await store.revokeUploadToken(org.id, 'ci', project.id))?.revokedAt).toBeInstanceOf(Date);
      expect(await store.findUploadToken(hash)).toBeUndefined();
      expect((await store.listUploadTokens(org.id)).map((t) => [t.name, t.revokedAt === null])).toEqual([['ci', false]]);
      expect((await store.listUploadTokens(other.id)).map((t) => [t.name, t.revokedAt === null])).toEqual([['ci', true]]);
    });
  });
}
