// The Issues page's table: one row per issue with its level (as a word and a colour), short id,
// title (a link to the issue page), culprit, first and last seen, events, users and a 24-hour
// sparkline, and a checkbox naming the issue for the bulk actions around it.
import type { Issue } from '../../core/ports/issue-store.ts';
import { Sparkline } from '../components/sparkline.tsx';
import { RelativeTime } from '../components/time.tsx';
import { formatCount } from '../components/formats.ts';

interface IssuesTableProps {
  issues: Issue[];
  sparklines: Map<number, number[]>;
  issueHref: (shortId: string) => string;
  now: Date;
  zone: string | null;
}

export function IssuesTable({ issues, sparklines, issueHref, now, zone }: IssuesTableProps) {
  return (
    <div class="table-scroll">
      <table class="table issues-table" data-issue-list="">
        <caption class="visually-hidden">Issues</caption>
        <thead>
          <tr>
            <th scope="col" class="issues-select">
              {/* Works with the page's script (assets/issue-keys.ts), which shows it. */}
              <input type="checkbox" id="select-page" aria-label="Select all on this page" hidden />
            </th>
            <th scope="col">Issue</th>
            <th scope="col" class="issues-graph">
              Last 24 hours
            </th>
            <th scope="col" class="issues-number">
              Events
            </th>
            <th scope="col" class="issues-number">
              Users
            </th>
            <th scope="col" class="issues-first-seen">
              First seen
            </th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {issues.map((issue) => (
            <tr key={issue.id} class={`issue-row level-${issue.level}`} data-issue-row="">
              <td class="issues-select">
                <input type="checkbox" name="issue" value={String(issue.id)} aria-label={`Select ${issue.shortId}`} />
              </td>
              <td class="issue-cell">
                <a class="issue-title" href={issueHref(issue.shortId)}>
                  {issue.title}
                </a>
                <div class="issue-meta">
                  <span class={`level-badge level-badge-${issue.level}`}>{issue.level}</span>
                  <span class="issue-short-id">{issue.shortId}</span>
                  {issue.culprit && <span class="issue-culprit">{issue.culprit}</span>}
                  {issue.status === 'snoozed' && issue.snoozeUntil ? (
                    <span class="issue-status">
                      snoozed, wakes <RelativeTime date={issue.snoozeUntil} now={now} zone={zone} />
                    </span>
                  ) : (
                    issue.status !== 'unresolved' && <span class="issue-status">{issue.status}</span>
                  )}
                </div>
              </td>
              <td class="issues-graph">
                <Sparkline counts={sparklines.get(issue.id) ?? new Array<number>(24).fill(0)} />
              </td>
              <td class="issues-number">{formatCount(issue.count)}</td>
              <td class="issues-number">{formatCount(issue.userCount)}</td>
              <td class="issues-first-seen issues-time">
                <RelativeTime date={issue.firstSeen} now={now} zone={zone} />
              </td>
              <td class="issues-time">
                <RelativeTime date={issue.lastSeen} now={now} zone={zone} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
