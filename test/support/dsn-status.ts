// One event posted with a DSN to an ingest address, as an SDK would: the status ingest answers.
// The tests of disabled, rate-limited and deleted projects ask it whether a DSN still works.
import { randomUUID } from 'node:crypto';

export async function dsnStatus(ingestUrl: string, dsn: string): Promise<number> {
  const { username: key, pathname } = new URL(dsn);
  const response = await fetch(`${ingestUrl}/api${pathname}/store/?sentry_key=${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ event_id: randomUUID().replace(/-/g, ''), message: 'key check', level: 'info' }),
  });
  await response.arrayBuffer();
  return response.status;
}
