// Fills a project for bench:dashboard: ISSUES issues and EVENTS events over the last 14 days,
// written through the dispatcher's real event pipeline (normalize, group, record occurrences,
// store events) straight into the stores, which is what HTTP ingest would end in, minutes
// faster. Issue sizes are skewed as in life: a few loud issues, a long tail.
import { encodeQueuedItem, TOPICS } from '../../services/core/pipeline/queued-item.ts';
import type { EventStore } from '../../services/core/ports/event-store.ts';
import type { MetadataStore } from '../../services/core/ports/metadata-store.ts';
import { eventPipeline } from '../../services/dispatcher/event-pipeline.ts';
import { createLogger } from '../../services/runtime/logger.ts';
import { createMetrics, outcomeRecorder } from '../../services/runtime/metrics.ts';

const BATCH = 500;
const DAY_S = 86_400;

/** Three letters, no digits: grouping masks numbers, and each issue needs its own exception type. */
function letters(n: number): string {
  return [Math.floor(n / 676) % 26, Math.floor(n / 26) % 26, n % 26].map((c) => String.fromCharCode(97 + c)).join('');
}

function eventPayload(issue: number, n: number, timestamp: number) {
  const name = letters(issue);
  return {
    event_id: crypto.randomUUID().replace(/-/g, ''),
    timestamp,
    platform: 'node',
    level: issue % 7 === 0 ? 'warning' : 'error',
    environment: n % 4 === 0 ? 'staging' : 'production',
    release: `web@1.${issue % 5}.${n % 3}`,
    user: { id: `user-${n % 997}` },
    tags: { region: ['eu', 'us', 'ap'][n % 3], browser: ['chrome', 'firefox'][n % 2] },
    contexts: { trace: { trace_id: (n % 2 ** 31).toString(16).padStart(32, '0'), span_id: 'cd'.repeat(8) } },
    breadcrumbs: Array.from({ length: 5 }, (_, i) => ({
      timestamp: timestamp - 5 + i,
      category: 'http',
      message: `GET /api/items/${i}`,
      level: 'info',
    })),
    exception: {
      values: [
        {
          type: `Bench${name}Error`,
          value: `the ${name} step failed for order ${n}`,
          stacktrace: {
            frames: ['server.js', 'router.js', `${name}.js`].map((file, i) => ({
              filename: `/app/src/${file}`,
              abs_path: `/app/src/${file}`,
              function: `handle${i}`,
              lineno: 10 + i,
              colno: 5,
              in_app: true,
              pre_context: ['// before'],
              context_line: `  throw new Error('${name}');`,
              post_context: ['// after'],
            })),
          },
        },
      ],
    },
  };
}

export async function seedProject(
  stores: { metadata: MetadataStore; events: EventStore },
  project: { id: number; organizationId: number },
  counts: { issues: number; events: number },
): Promise<void> {
  const metrics = createMetrics({ processMetrics: false });
  const pipeline = eventPipeline({
    metadata: stores.metadata,
    events: stores.events,
    outcomes: outcomeRecorder(metrics, 'dispatcher'),
    metrics,
    logger: createLogger('warn'),
  });
  const now = Date.now() / 1000;
  let offset = 0;
  for (let start = 0; start < counts.events; start += BATCH) {
    const records = [];
    for (let n = start; n < Math.min(counts.events, start + BATCH); n++) {
      // Every issue at least once, then skewed towards the low numbers.
      const issue = n < counts.issues ? n : Math.floor(counts.issues * Math.random() ** 3);
      const timestamp = now - Math.random() * 14 * DAY_S;
      const payload = eventPayload(issue, n, timestamp);
      const header = {
        v: 1 as const,
        kind: 'event' as const,
        id: payload.event_id,
        projectId: project.id,
        organizationId: project.organizationId,
        receivedAt: timestamp,
      };
      records.push({
        topic: TOPICS.events,
        partition: 0,
        key: String(project.id),
        offset: String(offset++),
        value: encodeQueuedItem({ header, payload: Buffer.from(JSON.stringify(payload)) }),
      });
    }
    await pipeline(records);
    if ((start / BATCH) % 40 === 0) process.stdout.write(`  seeded ${start + records.length} of ${counts.events} events\r`);
  }
  process.stdout.write('\n');
}
