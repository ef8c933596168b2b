// The logger the Kafka adapter writes its warnings to (a failed consumer, a drain cut short):
// the role's pino logger. @platformatic/kafka writes no log lines of its own; its errors reach
// the adapter's callers, which log them with the topic they concern.
import type { Logger } from 'pino';

export type KafkaLogger = Pick<Logger, 'warn'>;
