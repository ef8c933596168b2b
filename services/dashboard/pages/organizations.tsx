// /organizations when the instance has more than one: a list to choose from (with one, the
// address goes straight to its Issues page).
import type { Organization } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';

interface OrganizationsPageProps {
  assets: AssetSet;
  organizations: Organization[];
  viewer: User;
}

export function OrganizationsPage({ assets, organizations, viewer }: OrganizationsPageProps) {
  return (
    <AppShell title="Organizations" assets={assets} viewer={viewer}>
      <h1>Organizations</h1>
      {organizations.length === 0 ? (
        <p>This instance has no organization yet: start it once with errata start.</p>
      ) : (
        <ul class="link-list">
          {organizations.map((organization) => (
            <li key={organization.id}>
              <a href={`/organizations/${encodeURIComponent(organization.slug)}/issues`}>{organization.name}</a>{' '}
              <span class="muted">{organization.slug}</span>
            </li>
          ))}
        </ul>
      )}
    </AppShell>
  );
}
