// Keeps one unstorable record from holding back a topic. A batch that fails is run again one
// record at a time (handlers are idempotent, so records that had gone through are harmless to
// repeat). A record that still fails on its own, a few tries later, while the stores answer
// their ping, cannot be stored at all: it is logged with its error, counted
// (errata_outcomes_total{reason="processing_failed"}) and passed over. While the stores do not
// answer, or the error says a store is unavailable (UnavailableError: the adapters classify
// connection loss, overload, read-only servers, missing tables), the error goes back to the
// queue, which retries the whole batch later: an outage never drops anything.
import { UnavailableError } from '../core/errors.ts';
import type { DataCategory, OutcomeRecorder } from '../core/outcomes.ts';
import type { BatchHandler, DeliveredRecord } from '../core/ports/queue.ts';
import type { Logger } from '../runtime/logger.ts';

interface IsolationDeps {
  category: DataCategory;
  /** Items one record stands for (a log container's declared records); 1 when absent. */
  quantityOf?(record: DeliveredRecord): number;
  /** Resolves when every store the handler writes to answers. */
  storesAnswer(): Promise<void>;
  outcomes: OutcomeRecorder;
  logger: Logger;
  attempts?: number;
  backoffMs?: number;
}

export function isolateFailures(handler: BatchHandler, deps: IsolationDeps): BatchHandler {
  const attempts = deps.attempts ?? 3;
  return async (records) => {
    try {
      await handler(records);
      return;
    } catch (error) {
      await retryLaterIfUnavailable(deps, error);
    }
    for (const record of records) {
      for (let attempt = 1; ; attempt++) {
        try {
          await handler([record]);
          break;
        } catch (error) {
          await retryLaterIfUnavailable(deps, error);
          if (attempt >= attempts) {
            drop(deps, record, error);
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, (deps.backoffMs ?? 100) * attempt));
        }
      }
    }
  };
}

/** Rethrows (to the queue, which retries the batch) when the failure is an outage, not the record. */
async function retryLaterIfUnavailable(deps: IsolationDeps, error: unknown): Promise<void> {
  if (error instanceof UnavailableError) throw error;
  await deps.storesAnswer().catch(() => Promise.reject(error));
}

function drop(deps: IsolationDeps, record: DeliveredRecord, error: unknown): void {
  deps.logger.error(
    { err: error, topic: record.topic, partition: record.partition, offset: record.offset, key: record.key },
    'record cannot be stored; passed over',
  );
  deps.outcomes.record('processing_failed', deps.category, deps.quantityOf?.(record) ?? 1);
}
