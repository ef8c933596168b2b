// Every migration, in the order it runs. A version is recorded in schema_migrations once applied.
import initial from './0001-initial.ts';
import issueLifecycle from './0002-issue-lifecycle.ts';
import uploadTokens from './0003-upload-tokens.ts';
import sourceMapArtifacts from './0004-source-map-artifacts.ts';
import alerts from './0005-alerts.ts';
import heldDeliveries from './0006-held-deliveries.ts';
import users from './0007-users.ts';
import projectEnvironments from './0008-project-environments.ts';
import eventsIssueTimeCovering from './0009-events-issue-time-covering.ts';
import issueTagValues from './0010-issue-tag-values.ts';
import agentTokenLastUsed from './0011-agent-token-last-used.ts';
import agentCalls from './0012-agent-calls.ts';
import invitations from './0013-invitations.ts';
import alertRuleState from './0014-alert-rule-state.ts';
import logVolume from './0015-log-volume.ts';
import userIdentities from './0016-user-identities.ts';
import groupingRules from './0017-grouping-rules.ts';
import eventPayloadStorage from './0018-event-payload-storage.ts';
import payloadSegments from './0019-payload-segments.ts';
import payloadErasures from './0020-payload-erasures.ts';
import payloadCommittedEnds from './0021-payload-committed-ends.ts';
import releasesNewest from './0022-releases-newest.ts';
import sourceMapsNewest from './0023-source-maps-newest.ts';
import issueEventHours from './0024-issue-event-hours.ts';
import selfChosenEmails from './0025-self-chosen-emails.ts';
import processedEventsByIssue from './0026-processed-events-by-issue.ts';
import digestReportedUntil from './0027-digest-reported-until.ts';
import retentionIndexes from './0028-retention-indexes.ts';
import deletedIssues from './0029-deleted-issues.ts';
import agentTokenCreators from './0030-agent-token-creators.ts';
import oneUntriedTest from './0031-one-untried-test.ts';
import processedEventsKept from './0032-processed-events-kept.ts';
import deliveriesByIssue from './0033-deliveries-by-issue.ts';
import issueReleaseTimes from './0034-issue-release-times.ts';
import uploadTokenCreators from './0035-upload-token-creators.ts';
import deletedProjects from './0036-deleted-projects.ts';

export const MIGRATIONS: ReadonlyArray<{ version: string; sql: string }> = [
  { version: '0001-initial', sql: initial },
  { version: '0002-issue-lifecycle', sql: issueLifecycle },
  { version: '0003-upload-tokens', sql: uploadTokens },
  { version: '0004-source-map-artifacts', sql: sourceMapArtifacts },
  { version: '0005-alerts', sql: alerts },
  { version: '0006-held-deliveries', sql: heldDeliveries },
  { version: '0007-users', sql: users },
  { version: '0008-project-environments', sql: projectEnvironments },
  { version: '0009-events-issue-time-covering', sql: eventsIssueTimeCovering },
  { version: '0010-issue-tag-values', sql: issueTagValues },
  { version: '0011-agent-token-last-used', sql: agentTokenLastUsed },
  { version: '0012-agent-calls', sql: agentCalls },
  { version: '0013-invitations', sql: invitations },
  { version: '0014-alert-rule-state', sql: alertRuleState },
  { version: '0015-log-volume', sql: logVolume },
  { version: '0016-user-identities', sql: userIdentities },
  { version: '0017-grouping-rules', sql: groupingRules },
  { version: '0018-event-payload-storage', sql: eventPayloadStorage },
  { version: '0019-payload-segments', sql: payloadSegments },
  { version: '0020-payload-erasures', sql: payloadErasures },
  { version: '0021-payload-committed-ends', sql: payloadCommittedEnds },
  { version: '0022-releases-newest', sql: releasesNewest },
  { version: '0023-source-maps-newest', sql: sourceMapsNewest },
  { version: '0024-issue-event-hours', sql: issueEventHours },
  { version: '0025-self-chosen-emails', sql: selfChosenEmails },
  { version: '0026-processed-events-by-issue', sql: processedEventsByIssue },
  { version: '0027-digest-reported-until', sql: digestReportedUntil },
  { version: '0028-retention-indexes', sql: retentionIndexes },
  { version: '0029-deleted-issues', sql: deletedIssues },
  { version: '0030-agent-token-creators', sql: agentTokenCreators },
  { version: '0031-one-untried-test', sql: oneUntriedTest },
  { version: '0032-processed-events-kept', sql: processedEventsKept },
  { version: '0033-deliveries-by-issue', sql: deliveriesByIssue },
  { version: '0034-issue-release-times', sql: issueReleaseTimes },
  { version: '0035-upload-token-creators', sql: uploadTokenCreators },
  { version: '0036-deleted-projects', sql: deletedProjects },
];
