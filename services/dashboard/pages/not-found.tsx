// The dashboard's 404: says which address has no page, inside the organization's frame so that
// the navigation still leads somewhere.
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';

interface NotFoundPageProps {
  assets: AssetSet;
  organization: string | undefined;
  path: string;
}

export function NotFoundPage({ assets, organization, path }: NotFoundPageProps) {
  return (
    <AppShell title="Not found" assets={assets} organization={organization}>
      <div class="empty-state">
        <p class="empty-state-code">404</p>
        <h1>Page not found</h1>
        <p>
          There is no page at <code class="path">{path}</code>.
        </p>
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
