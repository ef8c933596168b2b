// The resolution panel: the marker the last resolve stamped (who, and whether a person or an
// agent token; commit, release, note, when) and what check_resolution says about it now, in the
// same words (core/issues/resolution-report.ts): a release never seen, the regressing event.
import type { ResolutionReport, ResolutionVerdict } from '../../../core/issues/resolution-report.ts';
import type { Issue } from '../../../core/ports/metadata-store.ts';
import { formatQuantity } from '../formats.ts';
import { RelativeTime } from '../time.tsx';

const VERDICTS: Record<ResolutionVerdict, string> = {
  held: 'Held',
  awaiting_release: 'Waiting for its release',
  regressed: 'Regressed',
  no_resolution: 'Not resolved',
};

export function ResolutionPanel({
  issue,
  report,
  now,
  zone,
  eventHref,
}: {
  issue: Issue;
  report: ResolutionReport;
  now: Date;
  zone: string | null;
  eventHref: (eventId: string) => string;
}) {
  const marker = issue.resolution;
  return (
    <section class="issue-card" aria-labelledby="resolution-heading">
      <h2 id="resolution-heading">Resolution</h2>
      <p class="verdict">
        <span class={`badge verdict-${report.status}`}>{VERDICTS[report.status]}</span> <span>{report.explanation}</span>
      </p>
      {marker && (
        <dl class="facts facts-compact">
          <dt>Resolved by</dt>
          <dd>
            {marker.by} <span class="muted">{`(${marker.byKind === 'person' ? 'person' : 'agent token'})`}</span>
          </dd>
          <dt>When</dt>
          <dd>
            <RelativeTime date={new Date(marker.resolvedAt)} now={now} zone={zone} />
          </dd>
          {marker.commit && (
            <>
              <dt>Commit</dt>
              <dd>
                <code>{marker.commit}</code>
              </dd>
            </>
          )}
          {marker.release && (
            <>
              <dt>Release</dt>
              <dd>
                <code>{marker.release}</code>
                {report.markerRelease && !report.markerRelease.seen && <span class="muted"> (never seen)</span>}
              </dd>
            </>
          )}
          {marker.note && (
            <>
              <dt>Note</dt>
              <dd class="prewrap">{marker.note}</dd>
            </>
          )}
          {report.since && (
            <>
              <dt>Since then</dt>
              <dd>
                {report.sinceDeleted ? 'events came, no longer stored' : formatQuantity(report.since.count, 'event')}
                {report.since.releases.length > 0 && (
                  <span class="muted">{` (releases ${report.since.releases.join(', ')})`}</span>
                )}
              </dd>
            </>
          )}
          {report.status === 'regressed' && issue.regressionRelease && (
            <>
              <dt>Came back in</dt>
              <dd>
                <code>{issue.regressionRelease}</code>
              </dd>
            </>
          )}
          {report.regressingEvent && (
            <>
              <dt>Regressing event</dt>
              <dd>
                <a href={eventHref(report.regressingEvent.eventId)}>
                  <code>{report.regressingEvent.eventId}</code>
                </a>
                {report.regressingEvent.traceId && (
                  <span class="muted">
                    {' trace '}
                    <code>{report.regressingEvent.traceId}</code>
                  </span>
                )}
              </dd>
            </>
          )}
          {report.recentReleases.length > 0 && (
            <>
              <dt>Recent releases</dt>
              <dd>
                {report.recentReleases.map((release, i) => (
                  <>
                    {i > 0 && ', '}
                    <code>{release.version}</code>
                  </>
                ))}
              </dd>
            </>
          )}
        </dl>
      )}
    </section>
  );
}
