// @platformatic/kafka's errors carry the broker's error codes, nested in aggregates: one per
// retry of a request, one per topic or partition of a response.

/** Whether the broker answered `apiId` (e.g. 'OFFSET_OUT_OF_RANGE') anywhere in the error. */
export function isKafkaError(error: unknown, apiId: string): boolean {
  return innermostErrors(error).some((e) => (e as { apiId?: unknown }).apiId === apiId);
}

/** Whether every error in it is the broker's `apiId`: a response of several topics may mix reasons. */
export function onlyKafkaError(error: unknown, apiId: string): boolean {
  return innermostErrors(error).every((e) => (e as { apiId?: unknown }).apiId === apiId);
}

/** The errors inside the aggregates: the broker's own, each with its `apiId`. */
export function innermostErrors(error: unknown): unknown[] {
  const nested = (error as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(nested) && nested.length > 0 ? nested.flatMap(innermostErrors) : [error];
}
