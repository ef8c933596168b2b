// The JSON shapes of the read API (and, later, of the MCP tools): camelCase, ISO timestamps.
import { toIso } from '../../core/event/timestamp.ts';
import type { LogRecord } from '../../core/logs/log-record.ts';
import type { StoredEvent } from '../../core/ports/event-store.ts';
import type { Issue, Project } from '../../core/ports/metadata-store.ts';

export function projectJson(project: Project, organizationSlug: string, dsn?: string) {
  return {
    id: project.id,
    slug: project.slug,
    name: project.name,
    organization: organizationSlug,
    dateCreated: project.createdAt.toISOString(),
    ...(dsn ? { dsn } : {}),
  };
}

export function issueJson(issue: Issue) {
  return {
    id: issue.id,
    shortId: issue.shortId,
    project: issue.projectSlug,
    title: issue.title,
    culprit: issue.culprit,
    level: issue.level,
    status: issue.status,
    type: issue.type,
    count: issue.count,
    userCount: issue.userCount,
    firstSeen: issue.firstSeen.toISOString(),
    lastSeen: issue.lastSeen.toISOString(),
    environments: issue.environments,
    firstRelease: issue.firstRelease,
    lastRelease: issue.lastRelease,
    metadata: issue.metadata,
  };
}

export function eventJson(event: StoredEvent) {
  return {
    eventId: event.eventId,
    dateCreated: toIso(event.timestamp),
    dateReceived: toIso(event.receivedAt),
    level: event.level,
    title: event.title,
    culprit: event.culprit,
    platform: event.platform,
    environment: event.environment,
    release: event.release,
    traceId: event.traceId,
    payload: event.payload,
  };
}

export function logJson(log: LogRecord) {
  return {
    id: log.id,
    timestamp: toIso(log.timestamp),
    observedTimestamp: toIso(log.observedAt),
    level: log.level,
    severityNumber: log.severityNumber,
    body: log.body,
    traceId: log.traceId,
    spanId: log.spanId,
    attributes: log.attributes,
    release: log.release,
    environment: log.environment,
  };
}
