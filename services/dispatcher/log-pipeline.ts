// The dispatcher's log pipeline: each queued `log` container becomes stored log records, ids
// derived from the container id so that redelivery rewrites the same rows. Containers of a project
// deleted after ingest accepted them are dropped (project_missing), as the event pipeline drops
// such events: stored, they would outlive the purge of its data (project-purge.ts).
import { normalizeLogContainer } from '../core/logs/normalize-log.ts';
import type { LogRecord } from '../core/logs/log-record.ts';
import { OutcomeTally, type OutcomeRecorder } from '../core/outcomes.ts';
import type { LogStore } from '../core/ports/log-store.ts';
import type { TenancyStore } from '../core/ports/tenancy-store.ts';
import { decodeQueuedItem } from '../core/pipeline/queued-item.ts';
import type { BatchHandler } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';
import type { Metrics } from '../runtime/metrics.ts';
import { countByProject } from './count-by-project.ts';
import { readQueuedJson } from './queued-json.ts';

interface LogPipelineDeps {
  logs: LogStore;
  /** Whether a container's project still exists: read once per project per batch. */
  metadata: Pick<TenancyStore, 'getProject'>;
  outcomes: OutcomeRecorder;
  metrics: Metrics;
  logger: Logger;
}

/**
 * Rows written at once, and gathered before writing. A batch of 8 MB held two 4 MiB containers of
 * 350,000 small records each; held until one write of all 700,000 at the end, they took the heap
 * 256 MB above where it started (the standalone backend's heap limit was then 256 MB). The
 * standalone server's batches now take 12 MB, about a million such records.
 */
const ROWS_PER_WRITE = 50_000;

export function logPipeline(deps: LogPipelineDeps): BatchHandler {
  return async (records) => {
    let rows: LogRecord[] = [];
    const stored = new Map<number, number>();
    const write = async (): Promise<void> => {
      for (let start = 0; start < rows.length; start += ROWS_PER_WRITE) {
        const part = rows.slice(start, start + ROWS_PER_WRITE);
        const stop = deps.metrics.pipelineStepDuration.startTimer({ step: 'store_logs' });
        await deps.logs.insertLogs(part);
        stop();
        deps.metrics.storeBatchSize.observe({ store: 'logs' }, part.length);
      }
      for (const [projectId, count] of countByProject(rows)) stored.set(projectId, (stored.get(projectId) ?? 0) + count);
      rows = [];
    };
    const outcomes = new OutcomeTally();
    const projects = new Map<number, Promise<boolean>>();
    const exists = (projectId: number) => {
      let found = projects.get(projectId);
      if (!found) projects.set(projectId, (found = deps.metadata.getProject(projectId).then((project) => project !== undefined)));
      return found;
    };
    for (const record of records) {
      const item = readQueuedJson(record.value, record, deps.logger);
      if ('dropped' in item) {
        outcomes.record(item.dropped, 'log_item', item.header?.itemCount ?? 1);
        continue;
      }
      if (!(await exists(item.header.projectId))) {
        outcomes.record('project_missing', 'log_item', item.header.itemCount ?? 1);
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
      if (rows.length >= ROWS_PER_WRITE) await write();
    }
    if (rows.length > 0) await write();
    // Counted once the whole batch is stored: a failed write runs the batch again, and the rows
    // written before it are written again under the same ids.
    for (const [projectId, count] of stored) {
      deps.metrics.pipelineProcessed.inc({ category: 'log_item', project_id: String(projectId) }, count);
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
