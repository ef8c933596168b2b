// Deleting an issue asks first: this page says what goes (the issue and every event of it) and
// posts the confirmation; only roles with the delete capability reach it.
import type { Issue } from '../../core/ports/metadata-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { formatQuantity } from '../components/formats.ts';

interface IssueDeletePageProps {
  assets: AssetSet;
  organization: string;
  viewer: User;
  csrf: string;
  issue: Issue;
  action: string;
  back: string;
}

export function IssueDeletePage({ assets, organization, viewer, csrf, issue, action, back }: IssueDeletePageProps) {
  return (
    <AppShell
      title={`Delete ${issue.shortId}`}
      assets={assets}
      organization={organization}
      current="issues"
      viewer={viewer}
      csrf={csrf}
    >
      <div class="issue-page confirm-card">
        <h1>{`Delete ${issue.shortId}?`}</h1>
        <p class="issue-title-small">{issue.title}</p>
        <p>{`This removes the issue and its ${formatQuantity(issue.count, 'event')} for good. A new event with the same fingerprint starts a new issue.`}</p>
        <form method="post" action={action} class="confirm-actions">
          <CsrfField token={csrf} />
          <input type="hidden" name="action" value="delete" />
          <input type="hidden" name="confirm" value="yes" />
          <button type="submit" class="button button-danger-solid">
            Delete issue and events
          </button>
          <a class="button" href={back}>
            Cancel
          </a>
        </form>
      </div>
    </AppShell>
  );
}
