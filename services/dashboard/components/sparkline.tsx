// A small bar chart of an issue's events per hour over the last 24 hours, rendered on the server
// as SVG (no script, no style attribute: the bars' colour comes from issues.css). Its accessible
// name says the total, which is what a glance at it tells.
import { formatQuantity } from './formats.ts';

const WIDTH = 96;
const HEIGHT = 24;

export function Sparkline({ counts }: { counts: readonly number[] }) {
  const total = counts.reduce((sum, n) => sum + n, 0);
  const highest = Math.max(1, ...counts);
  const slot = WIDTH / counts.length;
  const label = `${formatQuantity(total, 'event')} in the last 24 hours`;
  return (
    <svg class="sparkline" role="img" aria-label={label} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width={WIDTH} height={HEIGHT}>
      <title>{label}</title>
      <line class="sparkline-base" x1="0" y1={HEIGHT - 0.5} x2={WIDTH} y2={HEIGHT - 0.5} />
      {counts.map((count, hour) => {
        if (count === 0) return null;
        // At least 2px, so an hour with one event among hundreds still shows.
        const height = Math.max(2, Math.round((count / highest) * (HEIGHT - 2)));
        return (
          <rect
            key={hour}
            class="sparkline-bar"
            x={(hour * slot + 0.5).toFixed(2)}
            y={HEIGHT - height}
            width={(slot - 1).toFixed(2)}
            height={height}
          />
        );
      })}
    </svg>
  );
}
