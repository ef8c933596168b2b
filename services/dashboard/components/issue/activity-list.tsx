// The issue's activity, newest first: what people and agent tokens did (each named, and said to
// be which: an entry without actorKind predates people and was an agent token's) and what the
// events or the clock did. For owners and admins, a link to every agent tool call that touched
// the issue (the Agent activity page, filtered by it).
import type { IssueActivity } from '../../../core/ports/metadata-store.ts';
import { RelativeTime } from '../time.tsx';

const KINDS: Record<string, string> = {
  resolve: 'resolved',
  unresolve: 'unresolved',
  ignore: 'ignored',
  snooze: 'snoozed',
  delete: 'deleted',
  regression: 'regressed',
  snooze_expired: 'snooze ended',
};

interface ActivityListProps {
  activity: IssueActivity[];
  now: Date;
  zone: string | null;
  /** The Agent activity page filtered by this issue; absent for a role that may not see it. */
  agentActivityHref?: string | undefined;
}

export function ActivityList({ activity, now, zone, agentActivityHref }: ActivityListProps) {
  return (
    <section class="issue-card" aria-labelledby="activity-heading">
      <h2 id="activity-heading">Activity</h2>
      {activity.length === 0 ? (
        <p class="muted">Nothing has happened to this issue yet.</p>
      ) : (
        <ol class="activity">
          {activity.map((entry) => (
            <li key={entry.id}>
              <p>
                <strong>{actorText(entry)}</strong> {KINDS[entry.kind] ?? entry.kind}
                {typeof entry.details.snoozeMinutes === 'number' && ` for ${entry.details.snoozeMinutes} min`}
                {' · '}
                <RelativeTime date={entry.at} now={now} zone={zone} />
              </p>
              <Written details={entry.details} />
            </li>
          ))}
        </ol>
      )}
      {agentActivityHref && (
        <p class="small issue-agent-activity">
          <a href={agentActivityHref}>Agent activity</a>
          <span class="muted">: the agent tool calls that touched this issue</span>
        </p>
      )}
    </section>
  );
}

function actorText(entry: IssueActivity): string {
  if (entry.kind === 'regression' || entry.kind === 'snooze_expired') return entry.actor;
  const kind = entry.details.actorKind === 'person' ? 'person' : 'agent token';
  return `${entry.actor} (${kind})`;
}

function Written({ details }: { details: Record<string, unknown> }) {
  const parts = (['commit', 'release', 'note'] as const).filter((key) => typeof details[key] === 'string');
  if (parts.length === 0) return null;
  return <p class="muted small prewrap">{parts.map((key) => `${key}: ${details[key] as string}`).join('\n')}</p>;
}
