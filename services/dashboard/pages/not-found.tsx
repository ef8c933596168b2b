// The dashboard's 404: says which address has no page, inside the organization's frame so that
// the navigation still leads somewhere.
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';

interface NotFoundPageProps {
  assets: AssetSet;
  /** The signed-in person, when there is one. */
  viewer?: Pick<User, 'name' | 'theme'> | undefined;
  organization: string | undefined;
  path: string;
  /** What was not found, when a page knows ("no issue PROJ-12 in this organization"). */
  reason?: string | undefined;
}

export function NotFoundPage({ assets, viewer, organization, path, reason }: NotFoundPageProps) {
  return (
    <AppShell title="Not found" assets={assets} organization={organization} viewer={viewer}>
      <div class="empty-state">
        <p class="empty-state-code">404</p>
        <h1>Page not found</h1>
        <p>
          There is no page at <code class="path">{path}</code>.
        </p>
        {reason && <p>{`${reason.charAt(0).toUpperCase()}${reason.slice(1)}.`}</p>}
        <p class="muted">The address may be mistyped, or what it named may have been deleted.</p>
        {organization ? (
          <a class="button" href={`/organizations/${encodeURIComponent(organization)}/issues`}>
            Go to Issues
          </a>
        ) : (
          <a class="button" href="/">
            Go to the start page
          </a>
        )}
      </div>
    </AppShell>
  );
}
