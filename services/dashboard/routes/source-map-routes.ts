// A project's Source maps page (/organizations/{org}/projects/{slug}/source-maps), for people
// with the `projects` capability (checked for the page and every form): its upload tokens
// (mint, revoke) and the files sentry-cli uploaded, by Debug ID (delete). It calls what
// `errata createuploadtoken`, `revokeuploadtoken` and `deletesourcemaps` and the management API
// call. The plaintext is in one answer only: the POST that minted it (no-store, like every page,
// and never redirected to), inside the environment block sentry-cli reads.
import { h } from 'preact';
import { ConflictError, NotFoundError, UserInputError } from '../../core/errors.ts';
import { redirectNotice } from '../redirect-notice.ts';
import type { Project } from '../../core/ports/metadata-store.ts';
import {
  createUploadToken,
  revokeProjectUploadToken,
  UPLOAD_COMMAND,
  uploadToolEnvironment,
} from '../../core/provisioning/upload-tokens.ts';
import { deleteStoredMaps, listedMaps } from '../../core/sourcemaps/stored-maps.ts';
import type { OrganizationPage, OrganizationRoute } from '../organization-page.ts';
import type { FormNotice } from '../pages/project-parts.tsx';
import { SourceMapsPage, type MintedUploadToken } from '../pages/source-maps.tsx';
import { projectOf } from './project-routes.ts';

/** What a redirect's ?saved= says on the page it lands on: fixed texts, nothing taken from the address. */
const SAVED: Record<string, FormNotice & { section: 'tokens' | 'maps' }> = {
  revoked: { kind: 'saved', section: 'tokens', text: 'Revoked: sentry-cli is refused (401) from its next upload.' },
  deleted: {
    kind: 'saved',
    section: 'maps',
    text: 'Deleted: events from now on keep their minified frames, until that build is uploaded again.',
  },
};

/** Files the page shows, newest first (the CLI and the API list up to 1,000). */
const SHOWN_MAP_FILES = 200;

interface Shown {
  minted?: MintedUploadToken;
  /** A refused form's reason, beside the form. */
  notice?: FormNotice & { section: 'tokens' | 'maps' };
  typedName?: string;
}

async function mapsPage(page: OrganizationPage, project: Project, status: number, shown: Shown = {}): Promise<void> {
  const [tokens, { artifacts, total }] = await Promise.all([
    page.deps.metadata.listUploadTokens(page.organization.id),
    listedMaps(page.deps.metadata, project.id, SHOWN_MAP_FILES),
  ]);
  const saved = page.ctx.method === 'GET' ? redirectNotice(page.ctx, 'saved', SAVED) : undefined;
  page.send(
    status,
    h(SourceMapsPage, {
      assets: page.assets,
      csrf: page.csrf,
      viewer: page.viewer,
      organization: page.organization.slug,
      project,
      tokens: tokens.filter((token) => token.projectId === project.id),
      artifacts,
      totalFiles: total,
      href: page.href,
      now: page.now(),
      notice: shown.notice ?? saved,
      minted: shown.minted,
      typedName: shown.typedName,
    }),
  );
}

/** The page's address, and where its forms post. */
const base = (page: OrganizationPage, project: Project) => page.href('projects', project.slug, 'source-maps');

/** Checks the role, then finds the project: a member learns nothing about which projects exist. */
async function allowedProject(page: OrganizationPage, slug: string): Promise<Project> {
  page.require('projects');
  return projectOf(page, slug);
}

const field = (form: URLSearchParams, name: string) => form.get(name) ?? '';

export const sourceMapRoutes: OrganizationRoute[] = [
  {
    method: 'GET',
    path: /^projects\/([^/]+)\/source-maps$/,
    async handle(page, [slug]) {
      await mapsPage(page, await allowedProject(page, slug!), 200);
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/source-maps\/upload-tokens$/,
    async handle(page, [slug]) {
      const project = await allowedProject(page, slug!);
      const form = await page.form();
      if (!form) return;
      const name = field(form, 'name');
      try {
        const created = await createUploadToken(page.deps.metadata, {
          project: project.slug,
          organization: page.organization.slug,
          ...(name.trim() ? { name } : {}),
          createdBy: page.viewer.id,
        });
        const environment = uploadToolEnvironment(page.deps.baseUrl, project.slug, created.plaintext);
        await mapsPage(page, project, 201, {
          minted: {
            name: created.token.name,
            environment: environment.map((line) => `export ${line}`).join('\n'),
            command: UPLOAD_COMMAND,
          },
        });
      } catch (error) {
        if (!(error instanceof UserInputError || error instanceof ConflictError)) throw error;
        // createUploadToken's rules and messages (shared with the CLI); its flag names become the form's.
        const text =
          error instanceof ConflictError
            ? `A live upload token named "${name.trim().slice(0, 100)}" exists: choose another name, or revoke that one first.`
            : capitalize(error.message.replace(/--name; "name" in the API/, 'the Name field'));
        await mapsPage(page, project, error instanceof ConflictError ? 409 : 400, {
          notice: { kind: 'error', section: 'tokens', text },
          typedName: name,
        });
      }
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/source-maps\/upload-tokens\/revoke$/,
    async handle(page, [slug]) {
      const project = await allowedProject(page, slug!);
      const form = await page.form();
      if (!form) return;
      const name = field(form, 'name');
      if (!name) throw new UserInputError('no token was named: use the Revoke button beside the token');
      try {
        await revokeProjectUploadToken(page.deps.metadata, project, name);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        throw new NotFoundError(
          `${error.message}: it may be revoked already, or belong to another project; this page lists them`,
        );
      }
      page.seeOther(`${base(page, project)}?saved=revoked`);
    },
  },
  {
    method: 'POST',
    path: /^projects\/([^/]+)\/source-maps\/delete$/,
    async handle(page, [slug]) {
      const project = await allowedProject(page, slug!);
      const form = await page.form();
      if (!form) return;
      const debugId = field(form, 'debugId');
      if (!debugId) throw new UserInputError('no Debug ID was named: use the Delete button of the files to delete');
      try {
        // The files, then their index entries: the dispatcher checks the index once a batch, so the next event is not symbolicated.
        await deleteStoredMaps({ metadata: page.deps.metadata, blobs: page.deps.blobs }, project.id, debugId);
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        throw new NotFoundError(
          `no source files stored under Debug ID "${debugId.slice(0, 60)}" in project ${project.slug}: they may be deleted already; this page lists them`,
        );
      }
      page.seeOther(`${base(page, project)}?saved=deleted`);
    },
  },
];

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
