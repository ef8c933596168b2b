// An Apple NSError's domain and code (mechanism.meta.ns_error, sent by sentry-cocoa): Sentry
// groups such an exception by them after its type, in place of its message.
import type { ExceptionValue } from '../event/event.ts';

export function nsErrorValues(exception: ExceptionValue): string[] {
  const meta = exception.mechanism?.meta as { ns_error?: { domain?: unknown; code?: unknown } } | null | undefined;
  const nsError = meta?.ns_error;
  if (!nsError || typeof nsError !== 'object') return [];
  return [nsError.domain, nsError.code]
    .filter((part) => typeof part === 'string' || typeof part === 'number')
    .map((part) => String(part));
}
