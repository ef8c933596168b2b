// The issue page (/organizations/{org}/issues/{shortId}, and .../events/{eventId} for one event
// that never drifts to a newer one): header and actions, the chart, the event (stack trace,
// breadcrumbs, request, user, contexts, logs, raw JSON) in the main column; facts, resolution,
// tags, similar issues, copy texts and activity beside it.
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { ActivityList } from '../components/issue/activity-list.tsx';
import { CopyBlock } from '../components/issue/copy-panel.tsx';
import { issueMarkdown, mcpCall } from '../components/issue/copy-texts.ts';
import { Breadcrumbs, Contexts, RawEvent, RequestAndUser, TraceLogs } from '../components/issue/event-details.tsx';
import { FrequencyChart } from '../components/issue/frequency-chart.tsx';
import { IssueActions } from '../components/issue/issue-actions.tsx';
import { ResolutionPanel } from '../components/issue/resolution-panel.tsx';
import { StackTrace, type TraceView } from '../components/issue/stack-trace.tsx';
import { RelativeTime } from '../components/time.tsx';
import type { ChartPeriod, IssuePageData } from './issue-data.ts';
import { formatCount } from '../components/formats.ts';

interface IssuePageProps {
  data: IssuePageData;
  assets: AssetSet;
  organization: string;
  viewer: User;
  csrf: string;
  now: Date;
  view: TraceView;
  /** The fixed text of a notice after an action (never text from the address). */
  notice: string | undefined;
  canTriage: boolean;
  canDelete: boolean;
  /** The Agent activity page filtered by this issue, for owners and admins; absent for others. */
  agentActivityHref?: string | undefined;
  href: (...segments: string[]) => string;
  /** The page's absolute address, for the copy texts. */
  absoluteUrl: string;
}

export function IssuePage(props: IssuePageProps) {
  const { data, viewer, now, href } = props;
  const { issue, event } = data;
  const zone = viewer.timeZone;
  const clock = { now, zone };
  const base = data.pinned && event ? href('issues', issue.shortId, 'events', event.eventId) : href('issues', issue.shortId);
  const query = (period: ChartPeriod, view: TraceView) => {
    const params = new URLSearchParams();
    if (period !== '24h') params.set('period', period);
    if (view !== 'app') params.set('view', view);
    if (data.environment && !data.pinned) params.set('environment', data.environment);
    const text = params.toString();
    return text ? `${base}?${text}` : base;
  };
  return (
    <AppShell
      title={`${issue.shortId} · ${issue.title}`}
      assets={props.assets}
      organization={props.organization}
      current="issues"
      viewer={viewer}
      csrf={props.csrf}
    >
      <div class="issue-page">
        <nav class="crumbs" aria-label="Breadcrumb">
          <a href={href('issues')}>Issues</a>
          <span aria-hidden="true"> / </span>
          <a href={`${href('issues')}?${new URLSearchParams({ project: data.project.slug })}`}>{data.project.name}</a>
          <span aria-hidden="true"> / </span>
          <span aria-current="page">{issue.shortId}</span>
        </nav>
        {props.notice && (
          <p class="notice notice-success" role="status">
            {props.notice}
          </p>
        )}
        <header class="issue-header">
          <p class="issue-head-meta">
            <span class={`level level-${issue.level}`}>{issue.level}</span>
            <span class="issue-short-id">{issue.shortId}</span>
            <span class={`badge status status-${issue.status}`}>{issue.status}</span>
            {issue.status === 'snoozed' && issue.snoozeUntil && (
              <span class="muted">
                {'until '}
                <RelativeTime date={issue.snoozeUntil} now={now} zone={zone} />
              </span>
            )}
          </p>
          <h1 class="issue-heading">{issue.title}</h1>
          {issue.culprit && <p class="issue-head-culprit">{issue.culprit}</p>}
          <IssueActions
            issue={issue}
            action={href('issues', issue.shortId, 'actions')}
            csrf={props.csrf}
            canTriage={props.canTriage}
            deleteHref={props.canDelete ? href('issues', issue.shortId, 'delete') : undefined}
          />
        </header>
        <div class="issue-layout">
          <aside class="issue-side issue-side-top" aria-label="About this issue">
            <section class="issue-card" aria-labelledby="facts-heading">
              <h2 id="facts-heading">Details</h2>
              <dl class="facts facts-compact">
                <dt>Events</dt>
                <dd>{formatCount(issue.count)}</dd>
                <dt>Users</dt>
                <dd>{formatCount(issue.userCount)}</dd>
                <dt>First seen</dt>
                <dd>
                  <RelativeTime date={issue.firstSeen} now={now} zone={zone} />
                </dd>
                <dt>Last seen</dt>
                <dd>
                  <RelativeTime date={issue.lastSeen} now={now} zone={zone} />
                </dd>
                <dt>First release</dt>
                <dd>{issue.firstRelease ?? <span class="muted">none</span>}</dd>
                <dt>Last release</dt>
                <dd>{issue.lastRelease ?? <span class="muted">none</span>}</dd>
                {issue.environments.length > 0 && (
                  <>
                    <dt>Environments</dt>
                    <dd>
                      {issue.environments.length === 1
                        ? issue.environments[0]
                        : issue.environments.map((name, i) => (
                            <span key={name}>
                              {i > 0 && ', '}
                              <a
                                href={`${href('issues', issue.shortId)}?${new URLSearchParams({ environment: name }).toString()}`}
                                aria-label={`Latest event from ${name}`}
                                aria-current={data.environment === name ? 'page' : undefined}
                              >
                                {name}
                              </a>
                            </span>
                          ))}
                    </dd>
                  </>
                )}
              </dl>
            </section>
            <ResolutionPanel
              issue={issue}
              report={data.resolution}
              now={now}
              zone={zone}
              eventHref={(eventId) => href('issues', issue.shortId, 'events', eventId)}
            />
            <section class="issue-card" aria-labelledby="tags-heading">
              <h2 id="tags-heading">Tags</h2>
              <p class="muted small">Each value's share of the events that carried its tag.</p>
              {data.tags.length === 0 ? (
                <p class="muted">No tags.</p>
              ) : (
                <dl class="tags">
                  {data.tags.map((tag) => (
                    <div key={tag.key} class="tag">
                      <dt>{tag.key}</dt>
                      {tag.values.map((v) => (
                        <dd key={v.value}>
                          <span class="tag-value">{v.value}</span>
                          <span class="muted" title={`${formatCount(v.count)} of ${formatCount(tag.total)} events`}>
                            {`${Math.round((v.count / tag.total) * 100)}%`}
                          </span>
                        </dd>
                      ))}
                    </div>
                  ))}
                </dl>
              )}
            </section>
          </aside>
          <div class="issue-main">
            <FrequencyChart period={data.period} series={data.series} periodHref={(p) => query(p, props.view)} zone={zone} />
            <section class="issue-card event-bar" aria-labelledby="event-heading">
              <div class="issue-card-head">
                <h2 id="event-heading">
                  {data.pinned ? 'Event' : data.environment ? `Latest event from ${data.environment}` : 'Latest event'}
                </h2>
                <nav class="event-nav" aria-label="Events">
                  {data.neighbours.older ? (
                    <a class="button" href={href('issues', issue.shortId, 'events', data.neighbours.older)} rel="prev">
                      ← Older
                    </a>
                  ) : (
                    <span class="button button-disabled" aria-disabled="true">
                      ← Older
                    </span>
                  )}
                  {data.neighbours.newer ? (
                    <a class="button" href={href('issues', issue.shortId, 'events', data.neighbours.newer)} rel="next">
                      Newer →
                    </a>
                  ) : (
                    <span class="button button-disabled" aria-disabled="true">
                      Newer →
                    </span>
                  )}
                  {(data.pinned || data.environment) && (
                    <a class="button" href={href('issues', issue.shortId)}>
                      Latest
                    </a>
                  )}
                </nav>
              </div>
              {event ? (
                <p class="event-facts">
                  <a
                    href={href('issues', issue.shortId, 'events', event.eventId)}
                    class="event-id"
                    title="Permalink to this event"
                  >
                    {event.eventId}
                  </a>
                  <span class="muted">
                    {' · '}
                    <RelativeTime date={new Date(event.timestamp * 1000)} now={now} zone={zone} />
                    {event.release && ` · ${event.release}`}
                    {event.environment && ` · ${event.environment}`}
                  </span>
                </p>
              ) : (
                <p class="muted">
                  {data.environment
                    ? `No stored event came from ${data.environment}.`
                    : 'No stored event: retention may have removed them.'}
                </p>
              )}
            </section>
            {event && (
              <>
                <StackTrace
                  payload={event.payload}
                  view={props.view}
                  viewHref={(v) => query(data.period, v)}
                  unmatchedDebugIds={data.unmatchedDebugIds}
                />
                <Breadcrumbs payload={event.payload} clock={clock} />
                <RequestAndUser payload={event.payload} />
                <Contexts payload={event.payload} />
                <TraceLogs
                  logs={data.logs}
                  traceId={event.traceId}
                  clock={clock}
                  traceHref={event.traceId ? href('traces', event.traceId) : undefined}
                />
                <RawEvent payload={event.payload} />
              </>
            )}
          </div>
          <aside class="issue-side issue-side-more" aria-label="Related">
            <section class="issue-card" aria-labelledby="similar-heading">
              <h2 id="similar-heading">Similar issues</h2>
              {data.similar.length === 0 ? (
                <p class="muted">None found.</p>
              ) : (
                <ul class="similar">
                  {data.similar.map(({ issue: other, reason }) => (
                    <li key={other.id}>
                      <a href={href('issues', other.shortId)}>{other.shortId}</a> <span>{other.title}</span>
                      <span class="muted small">{` · ${other.status} · ${other.count} events · ${reason === 'similar_title' ? 'similar title' : 'same exception and frame'}`}</span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            <section class="issue-card" aria-labelledby="copy-heading">
              <h2 id="copy-heading">For an agent</h2>
              <CopyBlock label="Copy as Markdown" text={issueMarkdown(issue, event, props.absoluteUrl)} />
              <CopyBlock label="Copy as MCP call" text={mcpCall(issue, data.environment)} />
            </section>
            <ActivityList activity={data.activity} now={now} zone={zone} agentActivityHref={props.agentActivityHref} />
          </aside>
        </div>
      </div>
    </AppShell>
  );
}
