// What Issues, Logs and the live tail show while the organization has no project: what
// belongs to a project there, and the way to make one.
import type { AssetSet } from '../assets/asset-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import { AppShell, type Section } from '../components/app-shell.tsx';

/** Why Logs and the live tail need a project. */
export const LOGS_NEED =
  'Logs belong to a project. Create one, point a Sentry SDK at its DSN with logs enabled (enableLogs: true), and they show up here.';

interface NoProjectsPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  href: (...segments: string[]) => string;
  title: string;
  current?: Section | undefined;
  /** What this part of the dashboard needs a project for, and how it fills. */
  purpose: string;
}

export function NoProjectsPage({ assets, csrf, viewer, organization, href, title, current, purpose }: NoProjectsPageProps) {
  return (
    <AppShell title={title} assets={assets} organization={organization} current={current} viewer={viewer} csrf={csrf}>
      <div class="empty-state">
        <h1>No projects yet</h1>
        <p class="muted">{purpose}</p>
        <a class="button button-primary" href={href('projects')}>
          Go to Projects
        </a>
      </div>
    </AppShell>
  );
}
