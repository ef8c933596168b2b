// The histogram says when it counted only part of its window: bars before that time are shaded
// and named "not counted", and a note under the chart says how to count it all.
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { VolumeChart, volumeBuckets } from './volume-chart.tsx';

const SINCE = Date.parse('2026-03-01T10:00:00Z') / 1000;
const buckets = volumeBuckets(
  [
    { start: SINCE + 120, level: 'info', count: 3 },
    { start: SINCE + 240, level: 'error', count: 1 },
  ],
  SINCE,
  SINCE + 360,
  120,
);
const chart = (countedSince?: number) =>
  renderToString(<VolumeChart buckets={buckets} countedSince={countedSince} bucketHref={() => '/x'} zone={null} />);

describe('the volume chart', () => {
  it('shades and names the bars before a bounded count began, and says so under the chart', () => {
    const html = chart(SINCE + 180);
    expect(html.match(/volume-uncounted/g)).toHaveLength(2);
    expect(html).toContain('10:00 UTC to 10:02 UTC: not counted');
    expect(html).toContain('10:02 UTC to 10:04 UTC: 3 records (3 info) from when counting started');
    expect(html).toContain('Counted from 10:03 UTC: a search by text or attributes counts only the newest records');
  });

  it('draws a whole count plainly', () => {
    const html = chart();
    expect(html).not.toContain('volume-uncounted');
    expect(html).not.toContain('Counted from');
    expect(html).toContain('10:02 UTC to 10:04 UTC: 3 records (3 info)');
  });

  it('names large counts with thousands separators', () => {
    const large = volumeBuckets([{ start: SINCE, level: 'warn', count: 12_345 }], SINCE, SINCE + 120, 120);
    const html = renderToString(<VolumeChart buckets={large} bucketHref={() => '/x'} zone={null} />);
    expect(html).toContain('12,345 records (12,345 warn)');
  });
});
