// The triage buttons: plain forms posting to .../issues/{shortId}/actions (no JavaScript
// needed), the server answering 303 back to the page. Resolve and snooze open a small form
// for their details; delete leads to a confirmation page and shows only for roles that may.
// Stop ignoring and Stop snoozing take the issue back to unresolved, as update_issue's unresolve.
import type { Issue } from '../../../core/ports/metadata-store.ts';
import { CsrfField } from '../auth-card.tsx';

interface IssueActionsProps {
  issue: Issue;
  action: string;
  csrf: string;
  canTriage: boolean;
  deleteHref: string | undefined;
}

export function IssueActions({ issue, action, csrf, canTriage, deleteHref }: IssueActionsProps) {
  if (!canTriage) return null;
  const simple = (name: string, label: string, primary = false) => (
    <form method="post" action={action} class="issue-action-form">
      <CsrfField token={csrf} />
      <input type="hidden" name="action" value={name} />
      <button type="submit" class={primary ? 'button button-primary' : 'button'}>
        {label}
      </button>
    </form>
  );
  return (
    <div class="issue-actions">
      {issue.status === 'resolved' ? simple('unresolve', 'Unresolve', true) : simple('resolve', 'Resolve', true)}
      {issue.status !== 'resolved' && (
        <details class="action-menu">
          <summary class="button">Resolve with…</summary>
          <form method="post" action={action} class="form action-popover">
            <CsrfField token={csrf} />
            <input type="hidden" name="action" value="resolve" />
            <div class="field">
              <label for="resolve-commit">Commit</label>
              <input id="resolve-commit" name="commit" maxLength={200} placeholder="e.g. 4f2a9c1" />
            </div>
            <div class="field">
              <label for="resolve-release">Release</label>
              <input id="resolve-release" name="release" maxLength={200} placeholder="e.g. web@2.4.0" />
            </div>
            <div class="field">
              <label for="resolve-note">Note</label>
              <textarea id="resolve-note" name="note" maxLength={2000} rows={3} />
            </div>
            <button type="submit" class="button button-primary">
              Resolve
            </button>
          </form>
        </details>
      )}
      {issue.status === 'ignored' ? simple('unresolve', 'Stop ignoring') : simple('ignore', 'Ignore')}
      {issue.status === 'snoozed' && simple('unresolve', 'Stop snoozing')}
      <details class="action-menu">
        <summary class="button">Snooze…</summary>
        <form method="post" action={action} class="form action-popover">
          <CsrfField token={csrf} />
          <input type="hidden" name="action" value="snooze" />
          <div class="field">
            <label for="snooze-minutes">Minutes</label>
            <input id="snooze-minutes" name="snoozeMinutes" type="number" min={1} max={525600} value="60" required />
            <p class="hint">The issue comes back as unresolved when the time is up.</p>
          </div>
          <button type="submit" class="button button-primary">
            Snooze
          </button>
        </form>
      </details>
      {deleteHref && (
        <a class="button button-danger" href={deleteHref}>
          Delete…
        </a>
      )}
    </div>
  );
}
