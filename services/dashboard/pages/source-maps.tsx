// A project's Source maps page (/organizations/{org}/projects/{slug}/source-maps), for people
// with the `projects` capability: the project's upload tokens (a New token form, Revoke for each
// live one) and the files sentry-cli uploaded, grouped by Debug ID (the minified file and its
// map, each with its size, upload and last use), each group with Delete. Right after minting, the
// page also carries the token's plaintext, once, inside the `export` lines sentry-cli reads
// (core/provisioning/upload-tokens.ts: the same values `errata createuploadtoken` prints).
import type { Project, SourceMapArtifact, UploadToken } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { formatCount } from '../components/formats.ts';
import { RelativeTime } from '../components/time.tsx';
import { CopyBox, Notice, ProjectHeader, type FormNotice } from './project-parts.tsx';
import { StoredMaps } from './stored-maps.tsx';

/** What the page shows the one time an upload token's plaintext exists. */
export interface MintedUploadToken {
  name: string;
  /** The `export` lines sentry-cli and the bundler plugins read, the token among them. */
  environment: string;
  /** What to run with them set. */
  command: string;
}

interface SourceMapsPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  project: Project;
  /** This project's upload tokens, live and revoked. */
  tokens: UploadToken[];
  /** The newest files stored, grouped by Debug ID on the page. */
  artifacts: SourceMapArtifact[];
  /** How many files the project keeps in all. */
  totalFiles: number;
  href: (...segments: string[]) => string;
  now: Date;
  /** A saved or refused form's notice, shown in the section it is about. */
  notice?: (FormNotice & { section: 'tokens' | 'maps' }) | undefined;
  minted?: MintedUploadToken | undefined;
  /** What a refused New token form had typed. */
  typedName?: string | undefined;
}

export function SourceMapsPage(props: SourceMapsPageProps) {
  const { assets, csrf, viewer, organization, project, tokens, artifacts, href, now, notice, minted, typedName } = props;
  const base = href('projects', project.slug, 'source-maps');
  const live = tokens.filter((token) => token.revokedAt === null);
  const revoked = tokens.filter((token) => token.revokedAt !== null).reverse();
  const noticeFor = (section: 'tokens' | 'maps') => (notice?.section === section ? notice : undefined);
  return (
    <AppShell
      title={`Source maps · ${project.name}`}
      assets={assets}
      organization={organization}
      current="projects"
      viewer={viewer}
      csrf={csrf}
    >
      <div class="project source-maps">
        <ProjectHeader
          project={project}
          projectsHref={href('projects')}
          issuesHref={href('issues')}
          current="source-maps"
          showKeys
        />
        <p class="hint source-maps-intro">
          Upload a build's minified files and source maps with <code>sentry-cli</code> (or a bundler plugin, which runs it) and
          errors from that build show the original files, lines and functions. Files are matched to events by Debug ID.
        </p>

        {minted && <Minted minted={minted} listHref={base} />}

        <section class="project-section" aria-labelledby="upload-tokens-heading">
          <h2 id="upload-tokens-heading">Upload tokens</h2>
          <p class="hint">An upload token lets sentry-cli upload to this project only. Errata keeps only its hash.</p>
          <Notice notice={noticeFor('tokens')} />
          <form class="inline-form" method="post" action={`${base}/upload-tokens`}>
            <CsrfField token={csrf} />
            <div class="field">
              <label for="upload-token-name">
                Name <span class="muted">(optional)</span>
              </label>
              <input
                id="upload-token-name"
                name="name"
                type="text"
                maxLength={100}
                placeholder="ci-deploy"
                value={typedName ?? ''}
              />
            </div>
            <button class="button button-primary" type="submit">
              Create upload token
            </button>
          </form>
          {live.length === 0 ? (
            <p class="muted">No live upload token: sentry-cli cannot upload to this project until one is created.</p>
          ) : (
            <UploadTokenTable tokens={live} viewer={viewer} now={now} csrf={csrf} revokeHref={`${base}/upload-tokens/revoke`} />
          )}
          {revoked.length > 0 && (
            <>
              <h3 class="source-maps-subheading">Revoked</h3>
              <UploadTokenTable tokens={revoked} viewer={viewer} now={now} />
            </>
          )}
        </section>

        <section class="project-section" aria-labelledby="stored-maps-heading">
          <h2 id="stored-maps-heading">Stored maps</h2>
          <p class="hint">
            Each build's files, by Debug ID. Last used is when a map last symbolicated an event; maps unused for the retention
            period are deleted by the hourly retention job.
          </p>
          <Notice notice={noticeFor('maps')} />
          {props.totalFiles > artifacts.length && (
            <p class="hint">{`The ${formatCount(artifacts.length)} newest of ${formatCount(props.totalFiles)} files.`}</p>
          )}
          <StoredMaps artifacts={artifacts} viewer={viewer} now={now} csrf={csrf} deleteHref={`${base}/delete`} />
        </section>
      </div>
    </AppShell>
  );
}

function Minted({ minted, listHref }: { minted: MintedUploadToken; listHref: string }) {
  return (
    <section class="token-minted" aria-labelledby="minted-heading">
      <h2 id="minted-heading">Upload token {minted.name} created: copy it now</h2>
      <p class="notice notice-warning" role="status">
        This is the only time the token is shown: Errata keeps only its hash. Leaving or reloading this page loses it; a lost
        token is revoked and replaced, never recovered.
      </p>
      <ol class="token-steps">
        <li>
          <p>
            Set these where the build runs (a CI secret for the token). sentry-cli and the bundler plugins read them; the
            organization is not checked:
          </p>
          <CopyBox id="upload-environment" text={minted.environment} what="the environment with the token" multiline />
        </li>
        <li>
          <p>Then, after each build, from the folder holding its output:</p>
          <CopyBox id="upload-command" text={minted.command} what="the sentry-cli commands" />
        </li>
      </ol>
      <a class="button" href={listHref}>
        Done, I have copied it
      </a>
    </section>
  );
}

interface UploadTokenTableProps {
  tokens: UploadToken[];
  viewer: User;
  now: Date;
  /** Live tokens get a Revoke button posting here; revoked ones show when instead. */
  csrf?: string;
  revokeHref?: string;
}

function UploadTokenTable({ tokens, viewer, now, csrf, revokeHref }: UploadTokenTableProps) {
  const zone = viewer.timeZone;
  return (
    <div class="table-scroll">
      <table class="table upload-tokens-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Created</th>
            <th scope="col">{revokeHref ? <span class="visually-hidden">Revoke</span> : 'Revoked'}</th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => (
            <tr key={token.id}>
              <td class="upload-token-name">{token.name}</td>
              <td>
                <RelativeTime date={token.createdAt} now={now} zone={zone} />
                {token.createdBy && <span class="token-creator muted"> by {token.createdBy}</span>}
              </td>
              <td class={revokeHref ? 'row-link' : undefined}>
                {revokeHref && csrf ? (
                  <form method="post" action={revokeHref}>
                    <CsrfField token={csrf} />
                    <input type="hidden" name="name" value={token.name} />
                    <button class="button button-small button-danger" type="submit">
                      Revoke<span class="visually-hidden">{` the upload token ${token.name}`}</span>
                    </button>
                  </form>
                ) : (
                  token.revokedAt && <RelativeTime date={token.revokedAt} now={now} zone={zone} />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
