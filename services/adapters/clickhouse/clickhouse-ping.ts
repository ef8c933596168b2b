// The health check both ClickHouse stores answer /healthz with: a real query (not the /ping
// endpoint), so that credentials and query processing are checked too, bounded in time.
import type { ClickHouseClient } from '@clickhouse/client';

export async function pingClickHouse(client: ClickHouseClient, timeoutMs = 5_000): Promise<void> {
  const result = await client.ping({ select: true, abort_signal: AbortSignal.timeout(timeoutMs) });
  // The client reports failure in the result instead of throwing.
  if (!result.success) throw new Error('ClickHouse did not answer the health check', { cause: result.error });
}
