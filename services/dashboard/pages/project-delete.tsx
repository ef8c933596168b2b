// Deleting a project asks first: this page says what goes (its issues and events, logs, source
// maps, keys, rules and tokens) and takes the project's slug, typed, as the confirmation, since
// nothing of it comes back. Only people who may manage projects (the `projects` capability) reach it.
import type { Project } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { formatQuantity } from '../components/formats.ts';
import { Notice, type FormNotice } from './project-parts.tsx';

interface ProjectDeletePageProps {
  assets: AssetSet;
  organization: string;
  viewer: User;
  csrf: string;
  project: Project;
  issues: number;
  keys: number;
  sourceMaps: number;
  action: string;
  back: string;
  /** A refused confirmation: why, and what was typed. */
  refused?: { notice: FormNotice; typed: string } | undefined;
}

export function ProjectDeletePage(props: ProjectDeletePageProps) {
  const { assets, organization, viewer, csrf, project, issues, keys, sourceMaps, action, back, refused } = props;
  return (
    <AppShell
      title={`Delete ${project.name}`}
      assets={assets}
      organization={organization}
      current="projects"
      viewer={viewer}
      csrf={csrf}
    >
      <div class="confirm-card project-delete">
        <h1>{`Delete the project ${project.name}?`}</h1>
        <p>It goes for good, with everything in it:</p>
        <ul>
          <li>{`its events and logs, and its ${formatQuantity(issues, 'issue')};`}</li>
          <li>{`its ${formatQuantity(keys, 'DSN key')}: SDKs that send to ${keys === 1 ? 'it' : 'them'} are refused (in a cluster within 30 seconds);`}</li>
          <li>
            {sourceMaps > 0 ? `its ${formatQuantity(sourceMaps, 'uploaded source file')}, ` : 'its uploaded source maps, '}
            its alert rules and releases, and the upload and agent tokens limited to it.
          </li>
        </ul>
        <p class="hint">
          {`Its slug is free again at once; a new project that takes it numbers its issues ${project.slug.toUpperCase()}-1, ${project.slug.toUpperCase()}-2… again. `}
          Stored events, logs and source maps are erased within 15 minutes. Organization-wide tokens, alert channels and the Agent
          activity log stay.
        </p>
        <form method="post" action={action} class="form">
          <CsrfField token={csrf} />
          <Notice notice={refused?.notice} />
          <div class="field">
            <label for="confirm-slug">
              Type the project's slug, <code>{project.slug}</code>, to confirm
            </label>
            <input
              id="confirm-slug"
              name="slug"
              type="text"
              required
              autocomplete="off"
              spellcheck={false}
              value={refused?.typed ?? ''}
            />
          </div>
          <div class="confirm-actions">
            <button type="submit" class="button button-danger-solid">
              Delete project
            </button>
            <a class="button" href={back}>
              Cancel
            </a>
          </div>
        </form>
      </div>
    </AppShell>
  );
}
