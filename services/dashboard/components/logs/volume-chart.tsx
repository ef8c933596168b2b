// The Logs page's volume histogram: records per time bucket, stacked by level, drawn on the
// server as SVG (classes only: the CSP allows no style attribute). Each bar is a link to the
// same search over that bucket's window, named for screen readers by its time and counts.
import { LOG_LEVELS, type LogLevel } from '../../../core/logs/log-record.ts';
import type { LogVolume } from '../../../core/ports/log-store.ts';
import { formatCount, formatDate, formatQuantity } from '../formats.ts';

const WIDTH = 600;
const HEIGHT = 80;
const GAP = 1;

export interface VolumeBucket {
  /** Float seconds. */
  start: number;
  end: number;
  counts: Partial<Record<LogLevel, number>>;
  total: number;
}

/** Every bucket of the window, empty ones included, from the store's counts. */
export function volumeBuckets(volume: LogVolume[], since: number, until: number, bucketSeconds: number): VolumeBucket[] {
  const count = Math.max(1, Math.ceil((until - since) / bucketSeconds));
  const buckets: VolumeBucket[] = Array.from({ length: count }, (_, i) => ({
    start: since + i * bucketSeconds,
    end: Math.min(until, since + (i + 1) * bucketSeconds),
    counts: {},
    total: 0,
  }));
  for (const { start, level, count: n } of volume) {
    // A record exactly at `until` falls one bucket past the end: it belongs to the last.
    const index = Math.min(count - 1, Math.max(0, Math.round((start - since) / bucketSeconds)));
    const bucket = buckets[index]!;
    bucket.counts[level] = (bucket.counts[level] ?? 0) + n;
    bucket.total += n;
  }
  return buckets;
}

interface VolumeChartProps {
  buckets: VolumeBucket[];
  /** Set when only records from this time on were counted: earlier bars are drawn as not counted. */
  countedSince?: number | undefined;
  /** The address of the same search over one bucket's window. */
  bucketHref: (bucket: VolumeBucket) => string;
  zone: string | null;
}

export function VolumeChart({ buckets, countedSince, bucketHref, zone }: VolumeChartProps) {
  const max = Math.max(1, ...buckets.map((b) => b.total));
  const slot = WIDTH / Math.max(1, buckets.length);
  const total = buckets.reduce((sum, b) => sum + b.total, 0);
  const time = (seconds: number) => formatTime(seconds, buckets, zone);
  const first = buckets[0];
  const last = buckets.at(-1);
  return (
    <section class="logs-volume" aria-labelledby="volume-heading">
      <h2 id="volume-heading" class="visually-hidden">
        Volume
      </h2>
      <svg class="volume-chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" aria-labelledby="volume-title">
        <title id="volume-title">{`Log records per ${bucketName(buckets)} by level: ${total} in the window. Choose a bar to narrow the window to it.`}</title>
        <line class="volume-axis" x1="0" x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} />
        {buckets.map((bucket, i) => {
          let top = HEIGHT;
          const uncounted = countedSince !== undefined && bucket.start < countedSince;
          const label = `${time(bucket.start)} to ${time(bucket.end)}: ${uncounted ? describePart(bucket, bucket.end <= countedSince) : describe(bucket)}`;
          return (
            <a key={i} href={bucketHref(bucket)} aria-label={`${label}. Show this window`} class="volume-link">
              <title>{label}</title>
              {/* The whole slot is the link's target, not only the (maybe empty) bar. */}
              <rect
                class={uncounted ? 'volume-slot volume-uncounted' : 'volume-slot'}
                x={i * slot}
                y="0"
                width={slot}
                height={HEIGHT}
              />
              {LOG_LEVELS.map((level) => {
                const n = bucket.counts[level] ?? 0;
                if (n === 0) return null;
                const height = Math.max(1.5, (n / max) * (HEIGHT - 4));
                top -= height;
                return (
                  <rect
                    key={level}
                    class={`volume-bar volume-${level}`}
                    x={i * slot + GAP / 2}
                    y={top}
                    width={Math.max(0.5, slot - GAP)}
                    height={height}
                  />
                );
              })}
            </a>
          );
        })}
      </svg>
      <div class="volume-labels muted small" aria-hidden="true">
        <span>{first ? time(first.start) : ''}</span>
        <span>{last ? time(last.end) : ''}</span>
      </div>
      {countedSince !== undefined && (
        <p class="muted small volume-partial">
          {`Counted from ${time(countedSince)}: a search by text or attributes counts only the newest records of a long window. Choose a bar or a shorter window to count all of it.`}
        </p>
      )}
    </section>
  );
}

function describe(bucket: VolumeBucket): string {
  if (bucket.total === 0) return 'no records';
  const parts = LOG_LEVELS.filter((level) => bucket.counts[level]).map(
    (level) => `${formatCount(bucket.counts[level] ?? 0)} ${level}`,
  );
  return `${formatQuantity(bucket.total, 'record')} (${parts.join(', ')})`;
}

/** A bar wholly or partly before the time counting started. */
function describePart(bucket: VolumeBucket, wholly: boolean): string {
  if (wholly) return 'not counted';
  return `${describe(bucket)} from when counting started`;
}

function bucketName(buckets: VolumeBucket[]): string {
  const seconds = buckets[0] ? buckets[0].end - buckets[0].start : 60;
  if (seconds >= 86_400) return `${Math.round(seconds / 86_400)} days`;
  if (seconds >= 3600) return `${Math.round(seconds / 3600)} hours`;
  if (seconds >= 60) return `${Math.round(seconds / 60)} minutes`;
  return `${Math.round(seconds)} seconds`;
}

/** A bucket edge: with the date once the window spans days, with seconds when buckets are shorter than a minute. */
function formatTime(seconds: number, buckets: VolumeBucket[], zone: string | null): string {
  const span = buckets.length ? buckets.at(-1)!.end - buckets[0]!.start : 0;
  const step = buckets[0] ? buckets[0].end - buckets[0].start : 60;
  const options: Intl.DateTimeFormatOptions = {
    hour: '2-digit',
    minute: '2-digit',
    ...(step < 60 ? { second: '2-digit' } : {}),
    ...(span > 86_400 ? { day: 'numeric', month: 'short' } : {}),
    timeZone: zone ?? 'UTC',
  };
  return formatDate(new Date(seconds * 1000), options) + (zone ? '' : ' UTC');
}
