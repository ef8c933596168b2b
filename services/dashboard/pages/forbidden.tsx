// The 403 a person gets for a page or action their role does not allow: what it needs and who
// has it, inside the organization's frame so the navigation still leads somewhere.
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';

interface ForbiddenPageProps {
  assets: AssetSet;
  /** The signed-in person, when there is one. */
  viewer?: Pick<User, 'name' | 'theme'> | undefined;
  organization: string;
  reason: string;
}

export function ForbiddenPage({ assets, viewer, organization, reason }: ForbiddenPageProps) {
  return (
    <AppShell title="Not allowed" assets={assets} organization={organization} viewer={viewer}>
      <div class="empty-state">
        <p class="empty-state-code">403</p>
        <h1>Not allowed</h1>
        <p>{`Your role does not allow this: ${reason}.`}</p>
        <p class="muted">An owner can change your role with errata createuser or the people settings.</p>
        <a class="button" href={`/organizations/${encodeURIComponent(organization)}/issues`}>
          Go to Issues
        </a>
      </div>
    </AppShell>
  );
}
