// @platformatic/kafka's errors carry the broker's error code, possibly nested in an aggregate
// of retries; findBy searches the whole chain.

/** Whether the broker answered `apiId` (e.g. 'TOPIC_ALREADY_EXISTS') anywhere in the error. */
export function isKafkaError(error: unknown, apiId: string): boolean {
  return Boolean((error as { findBy?: (key: string, value: unknown) => unknown } | undefined)?.findBy?.('apiId', apiId));
}
