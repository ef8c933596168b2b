// The first step of both dispatcher pipelines: a queue record back into its header and parsed
// JSON payload. A record that cannot be read is dropped, logged and counted, never retried:
// retrying could not make it readable, and it must not block the records behind it.
import type { DataCategory, OutcomeRecorder } from '../core/outcomes.ts';
import { decodeQueuedItem, type QueuedItemHeader } from '../core/pipeline/queued-item.ts';
import type { DeliveredRecord } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';

export function parseQueuedJson(
  record: DeliveredRecord,
  category: DataCategory,
  deps: { outcomes: OutcomeRecorder; logger: Logger },
): { header: QueuedItemHeader; json: unknown } | undefined {
  let item;
  try {
    item = decodeQueuedItem(record.value);
  } catch (error) {
    deps.logger.error({ err: error, topic: record.topic, offset: record.offset }, 'unreadable queue record');
    deps.outcomes.record('invalid_envelope', category);
    return undefined;
  }
  try {
    return { header: item.header, json: JSON.parse(item.payload.toString('utf8')) as unknown };
  } catch {
    deps.outcomes.record('invalid_json', category);
    return undefined;
  }
}
