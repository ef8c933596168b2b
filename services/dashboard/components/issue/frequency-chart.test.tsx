// The chart's summary for screen readers reads large counts as the rest of the dashboard does.
import { renderToString } from 'preact-render-to-string';
import { describe, expect, it } from 'vitest';
import { FrequencyChart } from './frequency-chart.tsx';

describe('the frequency chart', () => {
  it('sums up large counts with thousands separators', () => {
    const start = Date.parse('2026-03-01T00:00:00Z');
    const series = [1_200, 23_456, 3].map((count, i) => ({ at: new Date(start + i * 86_400_000), count }));
    const html = renderToString(<FrequencyChart period="14d" series={series} periodHref={() => '/x'} zone={null} />);
    expect(html).toMatch(/24,659 events in the last 14 days; the busiest day was [^<]* with 23,456\./);
  });

  it('names the day of each hour, since 24 hours span two days', () => {
    const start = Date.parse('2026-03-01T11:00:00Z');
    const series = Array.from({ length: 24 }, (_, i) => ({ at: new Date(start + i * 3_600_000), count: i === 23 ? 3 : 0 }));
    const html = renderToString(<FrequencyChart period="24h" series={series} periodHref={() => '/x'} zone={null} />);
    expect(html).toContain('<span>1 Mar, 11:00 UTC</span><span>2 Mar, 10:00 UTC</span>');
    expect(html).toContain('the busiest hour was 2 Mar, 10:00 UTC with 3.');
  });
});
