// kafkajs's own log lines (connection errors, crashes, rebalances), routed into the role's pino
// logger at warn and above, or dropped when there is none: kafkajs's console logger is noisy.
// Its text is dynamic, so it goes into a field and our message stays constant; only listed
// fields pass, so nothing taken from a record (key or value) can reach a log line.
import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from 'pino';

export type KafkaLogger = Pick<Logger, 'debug' | 'warn' | 'error'>;

const SAFE_FIELDS = [
  'error',
  'groupId',
  'memberId',
  'topic',
  'partition',
  'broker',
  'nodeId',
  'retryCount',
  'retryTime',
  'restart',
  'apiName',
  'correlationId',
] as const;

/** Known warnings about choices made on purpose here; kept at debug. */
const EXPECTED = [
  // Bounded retries are what make publish fail fast; after a failed send the producer starts
  // over with a new producer id (batching-producer.ts), so no sequence number is reused.
  'Limiting retries for the idempotent producer',
];

export function kafkaLogLevel(logger: KafkaLogger | undefined): logLevel {
  return logger ? logLevel.WARN : logLevel.NOTHING;
}

export function kafkaLogCreator(logger: KafkaLogger | undefined): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      if (!logger) return;
      const fields: Record<string, unknown> = { namespace, kafkaMessage: log.message };
      for (const name of SAFE_FIELDS) if (log[name] !== undefined) fields[name] = log[name];
      if (EXPECTED.some((text) => String(log.message).startsWith(text))) logger.debug(fields, 'kafka client notice');
      else if (level === logLevel.ERROR) logger.error(fields, 'kafka client error');
      else logger.warn(fields, 'kafka client warning');
    };
}
