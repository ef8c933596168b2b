// /organizations/{org}/whats-new: what needs attention in a window, as whats_new answers it
// without a release: each issue once with its reasons (regressed, new, spiking, burst) as
// badges, its events in the window and in all, and when it was last seen. The window and
// project are a GET form, so the address is shareable and the page works without JavaScript.
import type { Attention, AttentionReason } from '../../core/issues/attention.ts';
import { ATTENTION_REASONS } from '../../core/issues/attention.ts';
import type { Project } from '../../core/ports/tenancy-store.ts';
import type { User } from '../../core/ports/user-store.ts';
import type { AssetSet } from '../assets/asset-store.ts';
import { AppShell } from '../components/app-shell.tsx';
import { formatCount } from '../components/formats.ts';
import { RelativeTime } from '../components/time.tsx';

/** The windows offered, in minutes, with their words. */
export const WHATS_NEW_WINDOWS: readonly [minutes: number, label: string][] = [
  [15, 'Last 15 minutes'],
  [60, 'Last hour'],
  [1440, 'Last 24 hours'],
  [10_080, 'Last 7 days'],
];

/** What each reason means, for its badge's title and the legend. */
const REASON_WORDS: Record<AttentionReason, string> = {
  regressed: 'resolved, came back, still unresolved',
  new: 'first seen in the window',
  spiking: 'at least 10 events and 3× its usual rate',
  burst: 'at least 10 events with no usual rate before',
};

interface WhatsNewPageProps {
  assets: AssetSet;
  csrf: string;
  viewer: User;
  organization: string;
  href: (...segments: string[]) => string;
  projects: Project[];
  /** The project chosen; absent: every project. */
  project: Project | undefined;
  /** The environments to choose from, and the one chosen (absent: every environment). */
  environments: string[];
  environment: string | undefined;
  minutes: number;
  attention: Attention[];
  counts: Record<AttentionReason, number>;
  /** Issues found, shown or not. */
  found: number;
  truncated: boolean;
  /** A reason had more issues than were gathered: every count is a lower bound, and those shown the first of the gathered. */
  capped: boolean;
  now: Date;
}

export function WhatsNewPage(props: WhatsNewPageProps) {
  const { href, attention, counts, now } = props;
  const zone = props.viewer.timeZone;
  const window = WHATS_NEW_WINDOWS.find(([m]) => m === props.minutes)![1].toLowerCase();
  const projects = props.project
    ? props.project.name
    : `${props.projects.length} project${props.projects.length === 1 ? '' : 's'}`;
  const across = props.environment ? `${projects} in ${props.environment}` : projects;
  return (
    <AppShell
      title="What's new"
      assets={props.assets}
      organization={props.organization}
      current="whats-new"
      viewer={props.viewer}
      csrf={props.csrf}
    >
      <div class="whats-new-page">
        <header class="whats-new-header">
          <h1>What's new</h1>
          <form class="whats-new-filters" method="get" action={href('whats-new')}>
            <label for="minutes">Window</label>
            <select id="minutes" name="minutes" data-autosubmit="">
              {WHATS_NEW_WINDOWS.map(([minutes, label]) => (
                <option key={minutes} value={String(minutes)} selected={minutes === props.minutes}>
                  {label}
                </option>
              ))}
            </select>
            <label for="project">Project</label>
            <select id="project" name="project" data-autosubmit="">
              <option value="" selected={!props.project}>
                All projects
              </option>
              {props.projects.map((p) => (
                <option key={p.id} value={p.slug} selected={p.id === props.project?.id}>
                  {p.name}
                </option>
              ))}
            </select>
            <label for="environment">Environment</label>
            <select id="environment" name="environment" data-autosubmit="">
              <option value="" selected={!props.environment}>
                All environments
              </option>
              {props.environments.map((e) => (
                <option key={e} value={e} selected={e === props.environment}>
                  {e}
                </option>
              ))}
            </select>
            <button class="button button-small" type="submit" data-autosubmit-button="">
              Show
            </button>
          </form>
        </header>

        <p class="whats-new-summary" id="whats-new-summary">
          {props.capped ? 'At least ' : ''}
          {props.found} issue{props.found === 1 ? '' : 's'} need{props.found === 1 ? 's' : ''} attention in the {window} across{' '}
          {across}
          {props.found > 0 && ': '}
          {props.found > 0 &&
            ATTENTION_REASONS.filter((r) => counts[r] > 0)
              .map((r) => `${counts[r]} ${r}`)
              .join(', ')}
          .
        </p>
        {props.truncated && (
          <p class="notice notice-warning" role="status">
            Showing the first {attention.length} by priority
            {props.capped
              ? ' of those gathered (the most recently seen new and regressed, the largest rises; every count above is a lower bound)'
              : ''}
            ; choose one project or a shorter window for the rest.
          </p>
        )}

        {attention.length > 0 ? (
          <div class="table-scroll">
            <table class="table whats-new-table">
              <caption class="visually-hidden">Issues needing attention, most pressing first</caption>
              <thead>
                <tr>
                  <th scope="col">Issue</th>
                  <th scope="col">Reasons</th>
                  <th scope="col" class="whats-new-number">
                    Events in window
                  </th>
                  <th scope="col" class="whats-new-number">
                    Events
                  </th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {attention.map(({ issue, reasons, eventsInWindow }) => (
                  <tr key={issue.id} class="whats-new-row" data-short-id={issue.shortId}>
                    <td class="whats-new-issue">
                      <a class="whats-new-title" href={href('issues', issue.shortId)}>
                        {issue.title}
                      </a>
                      <div class="whats-new-meta">
                        <span class="whats-new-project">{issue.projectSlug}</span>
                        <a class="whats-new-short-id" href={href('issues', issue.shortId)}>
                          {issue.shortId}
                        </a>
                        {issue.status !== 'unresolved' && <span class="whats-new-status">{issue.status}</span>}
                      </div>
                    </td>
                    <td>
                      <ul class="reason-list" aria-label="Reasons">
                        {reasons.map((reason) => (
                          <li key={reason} class={`reason-badge reason-${reason}`} title={REASON_WORDS[reason]}>
                            {reason}
                          </li>
                        ))}
                      </ul>
                    </td>
                    <td class="whats-new-number">{formatCount(eventsInWindow)}</td>
                    <td class="whats-new-number">{formatCount(issue.count)}</td>
                    <td class="whats-new-time">
                      <RelativeTime date={issue.lastSeen} now={now} zone={zone} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : (
          <div class="empty-state whats-new-empty">
            <h2>Nothing needs attention</h2>
            <p class="muted">
              No issue is new, regressed, spiking or bursting in the {window} across {across}. Ignored and snoozed issues are left
              out.
            </p>
          </div>
        )}

        <dl class="whats-new-legend">
          {ATTENTION_REASONS.map((reason) => (
            <div key={reason}>
              <dt>
                <span class={`reason-badge reason-${reason}`}>{reason}</span>
              </dt>
              <dd class="muted">{REASON_WORDS[reason]}</dd>
            </div>
          ))}
        </dl>
      </div>
    </AppShell>
  );
}
