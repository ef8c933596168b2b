// The step before a bulk action on every issue matching a filter, or before any delete: how many
// issues, which filter, and a button that does it; delete also asks for the number of issues or
// the word delete typed out, since it cannot be undone.
import type { IssueAction } from '../../core/issues/lifecycle.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { CsrfField } from '../components/auth-card.tsx';
import { formatCount, formatQuantity } from '../components/formats.ts';

interface ConfirmPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  action: IssueAction;
  /** Issues matching (or selected). */
  count: number;
  /** The most one action takes: above it, the first that many in the list's order. */
  limit: number;
  /** The filter in words, or undefined for selected issues. */
  filterText: string | undefined;
  /** Every field to post again (the filter, the action, the scope, the selected ids). */
  fields: Array<[string, string]>;
  actionHref: string;
  cancelHref: string;
  error?: string | undefined;
}

const VERBS: Record<IssueAction, string> = {
  resolve: 'Resolve',
  unresolve: 'Unresolve',
  ignore: 'Ignore',
  snooze: 'Snooze',
  delete: 'Delete',
};

export function IssuesConfirmPage(props: ConfirmPageProps) {
  const { action, count } = props;
  const issues = formatQuantity(count, 'issue');
  const taken = Math.min(count, props.limit);
  const takenIssues = formatQuantity(taken, 'issue');
  const question = props.filterText ? `${VERBS[action]} ${issues} matching ${props.filterText}?` : `${VERBS[action]} ${issues}?`;
  return (
    <AppShell
      title={`${VERBS[action]} issues`}
      assets={props.assets}
      organization={props.organization}
      current="issues"
      viewer={props.viewer}
      csrf={props.csrf}
    >
      <div class="confirm-card">
        <h1>{question}</h1>
        {action === 'delete' ? (
          <p>
            Deleting removes the issues and all their events for good. A new event with the same fingerprint starts a new issue.
          </p>
        ) : (
          count <= taken && (
            <p class="muted">
              Every issue matching when you confirm is changed, including any that arrived since this page was made.
            </p>
          )
        )}
        {count > taken && (
          <p class="notice notice-warning">
            One action takes at most {formatCount(props.limit)} issues: this one takes the first {formatCount(taken)} in the
            list's order. Once they no longer match the filter (resolved issues leave the unresolved list, say), select all
            matching again for the next ones; or narrow the filter.
          </p>
        )}
        {props.error && (
          <p class="notice notice-warning" role="alert">
            {props.error}
          </p>
        )}
        <form class="form" method="post" action={props.actionHref}>
          <CsrfField token={props.csrf} />
          {props.fields.map(([name, value], i) => (
            <input key={`${name}-${i}`} type="hidden" name={name} value={value} />
          ))}
          <input type="hidden" name="confirm" value="yes" />
          <input type="hidden" name="count" value={String(taken)} />
          {action === 'delete' && (
            <div class="field">
              <label for="typed">Type {formatCount(taken)} or the word delete to confirm</label>
              <input id="typed" name="typed" type="text" autocomplete="off" required />
            </div>
          )}
          <div class="confirm-buttons">
            <button class={`button ${action === 'delete' ? 'button-danger-solid' : 'button-primary'}`} type="submit">
              {VERBS[action]} {takenIssues}
            </button>
            <a class="button" href={props.cancelHref}>
              Cancel
            </a>
          </div>
        </form>
      </div>
    </AppShell>
  );
}
