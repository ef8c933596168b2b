// The event-frequency chart: bars drawn on the server as SVG (classes only: the CSP allows no
// style attribute), its name and a sentence summing it up for screen readers, and links
// between 24 hours and 14 days.
import type { ChartPeriod, ChartPoint } from '../../pages/issue-data.ts';
import { formatCount, formatDate, formatQuantity } from '../formats.ts';

const WIDTH = 480;
const HEIGHT = 96;
const GAP = 2;

interface FrequencyChartProps {
  period: ChartPeriod;
  series: ChartPoint[];
  periodHref: (period: ChartPeriod) => string;
  zone: string | null;
}

export function FrequencyChart({ period, series, periodHref, zone }: FrequencyChartProps) {
  const total = series.reduce((sum, p) => sum + p.count, 0);
  const peak = series.reduce((best, p) => (p.count > best.count ? p : best), series[0] ?? { at: new Date(0), count: 0 });
  const max = Math.max(1, peak.count);
  const slot = WIDTH / Math.max(1, series.length);
  const label = (at: Date) => formatSlot(at, period, zone);
  const span = period === '24h' ? 'the last 24 hours' : 'the last 14 days';
  const summary =
    total === 0
      ? `No events in ${span}.`
      : `${formatQuantity(total, 'event')} in ${span}; the busiest ${period === '24h' ? 'hour' : 'day'} was ${label(peak.at)} with ${formatCount(peak.count)}.`;
  return (
    <section class="issue-card" aria-labelledby="chart-heading">
      <div class="issue-card-head">
        <h2 id="chart-heading">Events</h2>
        <nav class="segmented" aria-label="Chart period">
          <a href={periodHref('24h')} aria-current={period === '24h' ? 'true' : undefined}>
            24 hours
          </a>
          <a href={periodHref('14d')} aria-current={period === '14d' ? 'true' : undefined}>
            14 days
          </a>
        </nav>
      </div>
      <svg
        class="chart"
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-labelledby="chart-title chart-summary"
        preserveAspectRatio="none"
      >
        <title id="chart-title">{`Events per ${period === '24h' ? 'hour' : 'day'}, ${span}`}</title>
        <desc id="chart-summary">{summary}</desc>
        <line class="chart-axis" x1="0" x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} />
        {series.map((point, i) => {
          const height = point.count === 0 ? 0 : Math.max(2, (point.count / max) * (HEIGHT - 4));
          return (
            <rect key={i} class="chart-bar" x={i * slot + GAP / 2} y={HEIGHT - height} width={slot - GAP} height={height}>
              <title>{`${label(point.at)}: ${point.count}`}</title>
            </rect>
          );
        })}
      </svg>
      <div class="chart-labels muted small" aria-hidden="true">
        <span>{series[0] ? label(series[0].at) : ''}</span>
        <span>{series.at(-1) ? label(series.at(-1)!.at) : ''}</span>
      </div>
      <p class="muted small">{summary}</p>
    </section>
  );
}

// An hour names its day too: 24 hours span two days, and "11:00" at the axis's left and
// "10:00" at its right read as going back in time.
function formatSlot(at: Date, period: ChartPeriod, zone: string | null): string {
  const options: Intl.DateTimeFormatOptions =
    period === '24h'
      ? { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: zone ?? 'UTC' }
      : { day: 'numeric', month: 'short', timeZone: 'UTC' };
  return formatDate(at, options) + (period === '24h' && !zone ? ' UTC' : '');
}
