// The dispatcher's log pipeline: each queued `log` container becomes stored log records, ids
// derived from the container id so that redelivery rewrites the same rows.
import { normalizeLogContainer } from '../core/logs/normalize-log.ts';
import type { LogRecord } from '../core/logs/log-record.ts';
import { OutcomeTally, type OutcomeRecorder } from '../core/outcomes.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import { decodeQueuedItem } from '../core/pipeline/queued-item.ts';
import type { BatchHandler } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { countByProject } from './count-by-project.ts';
import { readQueuedJson } from './queued-json.ts';

interface LogPipelineDeps {
  logs: LogStore;
  outcomes: OutcomeRecorder;
  metrics: Metrics;
  logger: Logger;
}

export function logPipeline(deps: LogPipelineDeps): BatchHandler {
  return async (records) => {
    const rows: LogRecord[] = [];
    const outcomes = new OutcomeTally();
    for (const record of records) {
      const item = readQueuedJson(record.value, record, deps.logger);
      if ('dropped' in item) {
        outcomes.record(item.dropped, 'log_item', item.header?.itemCount ?? 1);
        continue;
      }
      const normalized = normalizeLogContainer(item.json, {
        containerId: item.header.id,
        projectId: item.header.projectId,
        receivedAt: item.header.receivedAt,
        sentAt: item.header.sentAt,
        ...(item.header.itemCount !== undefined ? { maxRecords: item.header.itemCount } : {}),
      });
      outcomes.record('invalid_log', 'log_item', normalized.invalid);
      outcomes.record('undeclared_record', 'log_item', normalized.undeclared);
      // One by one: a spread passes each record as an argument, and a container of 200,000
      // small records (a 4 MiB item holds that many) overflowed the stack.
      for (const row of normalized.records) rows.push(row);
    }
    if (rows.length > 0) {
      const stop = deps.metrics.pipelineStepDuration.startTimer({ step: 'store_logs' });
      await deps.logs.insertLogs(rows);
      stop();
      deps.metrics.storeBatchSize.observe({ store: 'logs' }, rows.length);
      for (const [projectId, count] of countByProject(rows)) {
        deps.metrics.pipelineProcessed.inc({ category: 'log_item', project_id: String(projectId) }, count);
      }
    }
    outcomes.recordTo(deps.outcomes);
  };
}

/** The records a queued log container stands for: what ingest accepted (and rate-limited) it as. */
export function declaredRecords(record: { value: Buffer }): number {
  try {
    return decodeQueuedItem(record.value).header.itemCount ?? 1;
  } catch {
    return 1;
  }
}
