// The admin operations behind the CLI (createproject, createtoken, ...), as plain JSON in and
// out. The CLI runs them against the stores directly when no server owns the data directory,
// or sends them over the server's admin socket when one does; either way the same code runs.
import { z } from 'zod';
import { ALERT_OPERATIONS } from './alert-operations.ts';
import { USER_OPERATIONS } from './user-operations.ts';
import { GROUPING_RULES_OPERATIONS } from './grouping-rules-operations.ts';
import { createAgentToken, listAgentTokens, revokeAgentToken } from '../../core/provisioning/agent-tokens.ts';
import {
  createProject,
  deleteProject,
  listProjectsWithDsns,
  PROJECT_DELETED,
  renameProject,
} from '../../core/provisioning/projects.ts';
import { setEventRateLimit } from '../../core/provisioning/project-keys.ts';
import {
  createUploadToken,
  listUploadTokens,
  revokeUploadToken,
  uploadTokenJson,
} from '../../core/provisioning/upload-tokens.ts';
import { NotFoundError, UserInputError } from '../../core/errors.ts';
import { findProjectIn, resolveOrganization } from '../../core/provisioning/organizations.ts';
import type { SecretBox } from '../../core/alerts/secret-box.ts';
import type { AlertStore } from '../../core/ports/alert-store.ts';
import type { BlobStore } from '../../core/ports/blob-store.ts';
import type { UserStore } from '../../core/ports/user-store.ts';
import type { AgentToken, MetadataStore } from '../../core/ports/metadata-store.ts';
import { deleteStoredMaps, listedMaps, storedMapJson } from '../../core/sourcemaps/stored-maps.ts';

export interface AdminContext {
  metadata: MetadataStore;
  /** The people who sign in to the dashboard. */
  users: UserStore;
  /** Alert channels and rules, and the box their signing secrets are sealed in. */
  alerts: AlertStore;
  secrets: SecretBox;
  /** ERRATA_WEBHOOK_ALLOW_HOSTS, which a channel's URL is checked against. */
  webhookAllowHosts: readonly string[];
  /** The blob store (source maps), opened only by the operations that need it. */
  blobs?: () => Promise<BlobStore>;
  baseUrl: string;
  /** Called after an operation changed DSN keys, so caches can forget them. */
  keysChanged?: (publicKey?: string) => void;
}

const organization = z.string().min(1).max(50).optional();

const tokenJson = (token: AgentToken) => ({
  name: token.name,
  role: token.role,
  project: token.projectSlug,
  createdAt: token.createdAt.toISOString(),
  revokedAt: token.revokedAt?.toISOString() ?? null,
  /** To the minute, as the dashboard's Agent tokens page shows it. */
  lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
});

export const ADMIN_OPERATIONS = {
  createproject: {
    input: z.object({ name: z.string(), slug: z.string().optional(), organization }),
    async run(ctx: AdminContext, input: { name: string; slug?: string; organization?: string }) {
      const created = await createProject(ctx.metadata, input, { baseUrl: ctx.baseUrl });
      return {
        organization: created.organizationSlug,
        project: { id: created.project.id, slug: created.project.slug, name: created.project.name },
        dsn: created.dsn,
      };
    },
  },
  listprojects: {
    input: z.object({ organization }),
    async run(ctx: AdminContext, input: { organization?: string }) {
      const projects = await listProjectsWithDsns(ctx.metadata, input, { baseUrl: ctx.baseUrl });
      return {
        projects: projects.map(({ project, dsns }) => ({ id: project.id, slug: project.slug, name: project.name, dsns })),
      };
    },
  },
  renameproject: {
    input: z.object({ project: z.string().min(1), name: z.string(), organization }),
    async run(ctx: AdminContext, input: { project: string; name: string; organization?: string }) {
      const organization = await resolveOrganization(ctx.metadata, input.organization);
      const renamed = await renameProject(
        ctx.metadata,
        await findProjectIn(ctx.metadata, organization, input.project),
        input.name,
      );
      return { project: renamed.slug, name: renamed.name };
    },
  },
  deleteproject: {
    input: z.object({ project: z.string().min(1), organization }),
    async run(ctx: AdminContext, input: { project: string; organization?: string }) {
      const organization = await resolveOrganization(ctx.metadata, input.organization);
      const project = await findProjectIn(ctx.metadata, organization, input.project);
      for (const key of (await deleteProject(ctx.metadata, project, new Date())).publicKeys) ctx.keysChanged?.(key);
      return { project: project.slug, organization: organization.slug, deleted: PROJECT_DELETED };
    },
  },
  createtoken: {
    input: z.object({ role: z.string().optional(), project: z.string().optional(), name: z.string().optional(), organization }),
    async run(ctx: AdminContext, input: { role?: string; project?: string; name?: string; organization?: string }) {
      const created = await createAgentToken(ctx.metadata, input);
      // The server's base URL, for the MCP configuration the CLI prints (not the CLI's own setting).
      return {
        organization: created.organizationSlug,
        token: tokenJson(created.token),
        plaintext: created.plaintext,
        baseUrl: ctx.baseUrl,
      };
    },
  },
  revoketoken: {
    input: z.object({ name: z.string().min(1), organization }),
    async run(ctx: AdminContext, input: { name: string; organization?: string }) {
      return { token: tokenJson(await revokeAgentToken(ctx.metadata, input)) };
    },
  },
  listtokens: {
    input: z.object({ organization }),
    async run(ctx: AdminContext, input: { organization?: string }) {
      return { tokens: (await listAgentTokens(ctx.metadata, input)).map(tokenJson) };
    },
  },
  createuploadtoken: {
    input: z.object({ project: z.string().min(1), name: z.string().optional(), organization }),
    async run(ctx: AdminContext, input: { project: string; name?: string; organization?: string }) {
      const created = await createUploadToken(ctx.metadata, input);
      return {
        organization: created.organizationSlug,
        token: uploadTokenJson(created.token),
        plaintext: created.plaintext,
        baseUrl: ctx.baseUrl,
      };
    },
  },
  revokeuploadtoken: {
    input: z.object({ name: z.string().min(1), organization }),
    async run(ctx: AdminContext, input: { name: string; organization?: string }) {
      return { token: uploadTokenJson(await revokeUploadToken(ctx.metadata, input)) };
    },
  },
  listuploadtokens: {
    input: z.object({ organization }),
    async run(ctx: AdminContext, input: { organization?: string }) {
      return { tokens: (await listUploadTokens(ctx.metadata, input)).map(uploadTokenJson) };
    },
  },
  listsourcemaps: {
    input: z.object({ project: z.string().min(1), organization }),
    async run(ctx: AdminContext, input: { project: string; organization?: string }) {
      const project = await findProjectIn(
        ctx.metadata,
        await resolveOrganization(ctx.metadata, input.organization),
        input.project,
      );
      const { artifacts, total } = await listedMaps(ctx.metadata, project.id);
      return { project: project.slug, artifacts: artifacts.map(storedMapJson), total };
    },
  },
  deletesourcemaps: {
    input: z.object({ project: z.string().min(1), debugId: z.string().min(1).max(100), organization }),
    async run(ctx: AdminContext, input: { project: string; debugId: string; organization?: string }) {
      const project = await findProjectIn(
        ctx.metadata,
        await resolveOrganization(ctx.metadata, input.organization),
        input.project,
      );
      if (!ctx.blobs) throw new Error('deletesourcemaps needs the blob store');
      const deleted = await deleteStoredMaps({ metadata: ctx.metadata, blobs: await ctx.blobs() }, project.id, input.debugId);
      return { project: project.slug, deleted: deleted.map(storedMapJson) };
    },
  },
  setratelimit: {
    input: z.object({ project: z.string().min(1), eventsPerMinute: z.number().int().min(0).nullable(), organization }),
    async run(ctx: AdminContext, input: { project: string; eventsPerMinute: number | null; organization?: string }) {
      const project = await findProjectIn(
        ctx.metadata,
        await resolveOrganization(ctx.metadata, input.organization),
        input.project,
      );
      for (const key of await setEventRateLimit(ctx.metadata, project, input.eventsPerMinute)) ctx.keysChanged?.(key);
      return { project: project.slug, eventsPerMinute: input.eventsPerMinute };
    },
  },
  setkeyactive: {
    input: z.object({ publicKey: z.string().min(1).max(64), active: z.boolean() }),
    async run(ctx: AdminContext, input: { publicKey: string; active: boolean }) {
      const key = await ctx.metadata.setProjectKeyActive(input.publicKey, input.active);
      if (!key) throw new NotFoundError(`no DSN key "${input.publicKey}": errata listprojects shows the DSNs`);
      ctx.keysChanged?.(input.publicKey);
      return { publicKey: key.publicKey, active: key.active };
    },
  },
  ...ALERT_OPERATIONS,
  ...USER_OPERATIONS,
  ...GROUPING_RULES_OPERATIONS,
} as const;

export type AdminOperation = keyof typeof ADMIN_OPERATIONS;

function isAdminOperation(name: string): name is AdminOperation {
  return Object.hasOwn(ADMIN_OPERATIONS, name);
}

export async function runAdminOperation(ctx: AdminContext, name: string, input: unknown): Promise<unknown> {
  if (!isAdminOperation(name)) throw new NotFoundError(`unknown admin operation "${name}"`);
  const operation = ADMIN_OPERATIONS[name];
  const parsed = operation.input.safeParse(input ?? {});
  if (!parsed.success) {
    // Named as the command's option (limit: --limit, debugId: --debug-id): "Too big" alone named nothing.
    const issue = parsed.error.issues[0]!;
    const key = issue.path[0];
    const option = typeof key === 'string' ? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}: ` : '';
    throw new UserInputError(`invalid arguments for ${name}: ${option}${issue.message}`);
  }
  return (operation.run as (ctx: AdminContext, input: unknown) => Promise<unknown>)(ctx, parsed.data);
}
