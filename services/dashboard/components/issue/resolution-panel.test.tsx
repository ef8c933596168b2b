// The resolution panel says what check_resolution says, in its facts as in its explanation.
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import type { ResolutionReport } from '../../../core/issues/resolution-report.ts';
import type { Issue } from '../../../core/ports/metadata-store.ts';
import { ResolutionPanel } from './resolution-panel.tsx';

const at = new Date('2026-03-01T00:00:00Z');
const issue: Issue = {
  id: 1,
  projectId: 1,
  projectSlug: 'web',
  shortId: 'WEB-1',
  title: 'Error: gone',
  culprit: '',
  level: 'error',
  status: 'resolved',
  type: 'error',
  metadata: {},
  firstSeen: at,
  lastSeen: new Date('2026-03-02T00:00:00Z'),
  count: 2,
  userCount: 0,
  environments: [],
  firstRelease: null,
  lastRelease: null,
  resolution: { resolvedAt: '2026-03-01T12:00:00Z', by: 'ada@example.com', byKind: 'person', release: 'web@2' },
  snoozeUntil: null,
  regressedAt: null,
  regressionRelease: null,
};
const stats = { count: 0, firstSeen: null, lastSeen: null, releases: [], releaseCount: 0, users: 0 };
const report = (sinceDeleted: boolean): ResolutionReport => ({
  status: 'held',
  since: stats,
  sinceDeleted,
  markerRelease: { seen: true, firstSeen: at },
  recentReleases: [],
  regressingEvent: undefined,
  explanation: 'as check_resolution words it',
});
const render = (r: ResolutionReport) =>
  renderToString(
    <ResolutionPanel issue={issue} report={r} now={new Date('2026-04-01T00:00:00Z')} zone={null} eventHref={() => '/x'} />,
  );

describe('the resolution panel', () => {
  it('says events came but are no longer stored, not "0 events", when retention deleted them', () => {
    // Before, "Since then: 0 events" beside an explanation saying events came.
    expect(render(report(true))).toContain('<dt>Since then</dt><dd>events came, no longer stored</dd>');
    expect(render(report(false))).toContain('<dt>Since then</dt><dd>0 events</dd>');
  });
});
