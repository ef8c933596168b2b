// The resolution panel: the marker the last resolve stamped (who, and whether a person or an
// agent token; commit, release, note, when) and what check_resolution says about it now.
import type { ResolutionReport } from '../../../core/issues/resolution-report.ts';
import type { Issue } from '../../../core/ports/metadata-store.ts';
import { RelativeTime } from '../time.tsx';

const VERDICTS = {
  held: { label: 'Held', text: 'No event has come since the resolve.' },
  regressed: { label: 'Regressed', text: 'An event newer than the resolve brought the issue back.' },
  no_resolution: { label: 'Not resolved', text: 'No resolve to check: resolve the issue to stamp a marker.' },
} as const;

export function ResolutionPanel({
  issue,
  report,
  now,
  zone,
}: {
  issue: Issue;
  report: ResolutionReport;
  now: Date;
  zone: string | null;
}) {
  const marker = issue.resolution;
  const verdict = VERDICTS[report.status];
  return (
    <section class="issue-card" aria-labelledby="resolution-heading">
      <h2 id="resolution-heading">Resolution</h2>
      <p class="verdict">
        <span class={`badge verdict-${report.status}`}>{verdict.label}</span> <span>{verdict.text}</span>
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
                {`${report.since.count} event${report.since.count === 1 ? '' : 's'}`}
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
        </dl>
      )}
    </section>
  );
}
