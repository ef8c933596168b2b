// A project's installation state, as verify_installation reports it
// (core/projects/installation-state.ts): no active key / waiting for an event / the test event
// seen / a real error (or message) seen / events came once and retention deleted them. Until a
// real event arrives, htmx reloads this box every 3 seconds (the fragment route answers just the
// box); the box that says a real event arrived has no trigger, so swapping it in ends the
// polling. Without JavaScript, a reload of the page shows the same thing.
import type { InstallationState } from '../../core/projects/installation-state.ts';
import { RelativeTime } from '../components/time.tsx';

interface InstallationProps {
  state: InstallationState;
  /** The fragment route this box polls. */
  pollHref: string;
  issuesHref: string;
  keysHref: string | undefined;
  now: Date;
  zone: string | null;
}

const TEXT = {
  no_dsn_key: { title: 'No active DSN key', tone: 'warning' },
  waiting_for_first_event: { title: 'Waiting for the first event', tone: 'waiting' },
  events_expired: { title: 'Events deleted by retention', tone: 'waiting' },
  test_event_received: { title: 'Test event seen', tone: 'progress' },
  real_event_received: { title: 'Real error seen', tone: 'done' },
} as const;

export function Installation({ state, pollHref, issuesHref, keysHref, now, zone }: InstallationProps) {
  const { verdict, latestEvent, expiredIssue } = state;
  const live = verdict !== 'real_event_received';
  const title = verdict === 'real_event_received' && latestEvent?.kind === 'message' ? 'Real event seen' : TEXT[verdict].title;
  const issue = latestEvent?.shortId && `${issuesHref}/${encodeURIComponent(latestEvent.shortId)}`;
  return (
    <section
      id="installation"
      class={`installation installation-${TEXT[verdict].tone}`}
      aria-labelledby="installation-title"
      data-verdict={verdict}
      {...(live ? { 'hx-get': pollHref, 'hx-trigger': 'every 3s', 'hx-swap': 'outerHTML' } : {})}
    >
      <span class="installation-dot" aria-hidden="true" />
      <div class="installation-body">
        <h2 id="installation-title" class="installation-title">
          {title}
        </h2>
        <p class="installation-detail">
          {verdict === 'no_dsn_key' && (
            <>
              Events are refused until a key is active.{' '}
              {keysHref ? <a href={keysHref}>Enable or add a key</a> : 'An admin or owner can enable or add one.'}
            </>
          )}
          {verdict === 'waiting_for_first_event' && 'Nothing has arrived yet. Set up the SDK below and send the test event.'}
          {verdict === 'events_expired' && expiredIssue && (
            <>
              Events came before (the last <RelativeTime date={expiredIssue.lastSeen} now={now} zone={zone} />, as{' '}
              <a href={`${issuesHref}/${encodeURIComponent(expiredIssue.shortId)}`}>{expiredIssue.shortId}</a>), and retention has
              deleted them all. Send the test event below to check the SDK still reaches Errata.
            </>
          )}
          {live && (
            <>
              {' '}
              <span class="js-only">This box updates by itself.</span>
              <noscript>Reload the page to see it change.</noscript>
            </>
          )}
          {verdict === 'test_event_received' && latestEvent && (
            <>
              The SDK reaches Errata (<RelativeTime date={latestEvent.receivedAt} now={now} zone={zone} />
              ). Waiting for the application's first real error.
            </>
          )}
          {verdict === 'real_event_received' && latestEvent && (
            <>
              Events are flowing: the latest arrived <RelativeTime date={latestEvent.receivedAt} now={now} zone={zone} />
              {issue ? (
                <>
                  {' '}
                  as <a href={issue}>{latestEvent.shortId}</a>.
                </>
              ) : (
                '.'
              )}
            </>
          )}
        </p>
      </div>
    </section>
  );
}
