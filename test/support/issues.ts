// Read-API helpers shared by the end-to-end suites.
import { api, eventually, type Provisioned } from './standalone-server.ts';

export interface IssueJson {
  shortId: string;
  title: string;
  culprit: string;
  level: string;
  status: string;
  count: number;
  userCount: number;
  firstSeen: string;
  lastSeen: string;
  environments: string[];
  lastRelease: string | null;
}

interface LogJson {
  body: string;
  level: string;
  severityNumber: number;
  traceId: string | null;
  attributes: Record<string, { type: string; value: unknown }>;
  release: string | null;
  environment: string | null;
}

export async function listIssues(server: { url: string }, p: Provisioned, query = 'status=all&limit=100'): Promise<IssueJson[]> {
  const response = await api<{ issues: IssueJson[] }>(
    server,
    `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/issues?${query}`,
    p.token,
  );
  if (response.status !== 200) throw new Error(`issues: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.issues;
}

/** Waits until an issue whose title contains `text` has at least `count` events. */
export function waitForIssue(server: { url: string }, p: Provisioned, text: string, count = 1): Promise<IssueJson> {
  return eventually(async () => {
    const issues = await listIssues(server, p, `status=all&limit=100&query=${encodeURIComponent(text)}`);
    const matching = issues.filter((i) => i.title.includes(text));
    if (matching.length > 1) throw new Error(`expected one issue for "${text}", got ${matching.map((i) => i.title).join(' | ')}`);
    return matching[0] && matching[0].count >= count ? matching[0] : undefined;
  }, `an issue titled like "${text}" with ${count} events`);
}

/**
 * The issue's latest stored event. The pipeline records the issue before it stores the event,
 * so right after waitForIssue the event may not be readable yet: this waits for it.
 */
export function waitForLatestEvent<T = any>(server: { url: string }, p: Provisioned, shortId: string): Promise<T> {
  return eventually(async () => {
    const detail = await api<{ latestEvent: T | null }>(
      server,
      `/api/v1/organizations/${p.organization}/issues/${shortId}`,
      p.token,
    );
    return detail.body.latestEvent ?? undefined;
  }, `the latest stored event of ${shortId}`);
}

export async function searchLogs(server: { url: string }, p: Provisioned, query: string): Promise<LogJson[]> {
  const response = await api<{ logs: LogJson[] }>(
    server,
    `/api/v1/organizations/${p.organization}/projects/${p.projectSlug}/logs?${query}`,
    p.token,
  );
  if (response.status !== 200) throw new Error(`logs: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.logs;
}

/** Waits until a log search returns at least `count` records. */
export function waitForLogs(server: { url: string }, p: Provisioned, query: string, count: number): Promise<LogJson[]> {
  return eventually(async () => {
    const logs = await searchLogs(server, p, query);
    return logs.length >= count ? logs : undefined;
  }, `${count} logs matching ${query}`);
}
