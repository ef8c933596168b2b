// Event ids: 32 lowercase hex characters. SDKs send them with or without dashes (sentry-cli
// puts a dashed UUID in the envelope header); anything else is not an event id.
import { randomUUID } from 'node:crypto';

export function parseEventId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(id) && !/^0+$/.test(id) ? id : undefined;
}

export function newEventId(): string {
  return randomUUID().replace(/-/g, '');
}
