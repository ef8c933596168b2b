// The first step of both dispatcher pipelines: a queue record back into its header and parsed
// JSON payload. A record that cannot be read is dropped, logged and counted, never retried:
// retrying could not make it readable, and it must not block the records behind it.
import type { OutcomeReason } from '../core/outcomes.ts';
import { decodeQueuedItem, type QueuedItemHeader } from '../core/pipeline/queued-item.ts';
import type { Logger } from '../runtime/logger.ts';

type QueuedJson = { header: QueuedItemHeader; json: unknown } | { dropped: OutcomeReason; header?: QueuedItemHeader };

export function readQueuedJson(value: Buffer, where: { topic: string; offset: string }, logger: Logger): QueuedJson {
  let item;
  try {
    item = decodeQueuedItem(value);
  } catch (error) {
    logger.error({ err: error, ...where }, 'unreadable queue record');
    return { dropped: 'invalid_envelope' };
  }
  try {
    return { header: item.header, json: JSON.parse(item.payload.toString('utf8')) as unknown };
  } catch {
    return { dropped: 'invalid_json', header: item.header };
  }
}
