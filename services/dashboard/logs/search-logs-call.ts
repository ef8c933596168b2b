// "Copy as search_logs call": the MCP tools/call an agent makes to get the records the Logs
// page shows, built from the same parsed search and window the page searched with.
import type { LogFilter, LogOrder } from '../../core/ports/log-store.ts';

interface CallInput {
  project: string;
  search: Pick<LogFilter, 'levels' | 'text' | 'traceId' | 'environment' | 'attributes' | 'comparisons'>;
  /** Float seconds, as the page searched. */
  since: number;
  until: number;
  sort: LogOrder;
  limit: number;
  cursor?: string | undefined;
}

export function searchLogsCall({ project, search, since, until, sort, limit, cursor }: CallInput): string {
  const iso = (seconds: number) => new Date(Math.round(seconds * 1000)).toISOString();
  const args = {
    project,
    ...(search.levels?.[0] ? { level: search.levels[0] } : {}),
    ...(search.text ? { query: search.text } : {}),
    ...(search.environment !== undefined ? { environment: search.environment } : {}),
    ...(search.traceId ? { traceId: search.traceId } : {}),
    ...(search.attributes ? { attributes: search.attributes } : {}),
    ...(search.comparisons
      ? { comparisons: search.comparisons.map(({ key, operator, value }) => ({ attribute: key, operator, value })) }
      : {}),
    from: iso(since),
    to: iso(until),
    ...(sort !== 'newest' ? { sort } : {}),
    limit,
    ...(cursor ? { cursor } : {}),
  };
  const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_logs', arguments: args } };
  return JSON.stringify(call, null, 2);
}
