// verify_installation: is a project's SDK set up? A DSN key exists, an event arrived, and
// whether the latest event was the install guides' synthetic test event or a real one
// (core/projects/installation-state.ts, which the dashboard's project page shows too).
import { z } from 'zod';
import { installationState } from '../../core/projects/installation-state.ts';
import { projectSlugInput } from '../tool-kit/issue-views.ts';
import { projectBySlug } from '../tool-kit/scope.ts';
import { defineTool } from '../tool-kit/tool.ts';

export const verifyInstallation = defineTool({
  name: 'verify_installation',
  title: 'Verify installation',
  description:
    'Whether a project is receiving events: a DSN key exists, any event arrived, and whether the latest one was the ' +
    'synthetic test event from the install guide (tag errata.test_event=true) or a real error or message; ' +
    'events_expired when events came once but retention has deleted every one.',
  minimumRole: 'read',
  annotations: { readOnlyHint: true, openWorldHint: false },
  inputSchema: { project: projectSlugInput },
  outputSchema: {
    project: z.string(),
    dsnKeyExists: z.boolean().describe('an active DSN key exists'),
    eventReceived: z.boolean().describe('an event is stored, or (events_expired) events came and retention deleted them'),
    latestEvent: z
      .object({
        eventId: z.string(),
        receivedAt: z.string(),
        kind: z.enum(['test_event', 'error', 'message']),
        shortId: z.string().nullable(),
      })
      .nullable(),
    expiredIssue: z
      .object({ shortId: z.string(), lastSeen: z.string() })
      .nullable()
      .describe("with events_expired: the project's most recently seen issue, which outlives its events"),
    verdict: z.enum(['no_dsn_key', 'waiting_for_first_event', 'events_expired', 'test_event_received', 'real_event_received']),
    nextStep: z.string(),
  },
  async run(input, context) {
    const project = await projectBySlug(context, input.project);
    const { dsnKeyExists, latestEvent, expiredIssue, verdict } = await installationState(context, project, context.now());
    const nextStep = {
      no_dsn_key: 'an admin creates or enables a key (get_dsn shows the keys)',
      waiting_for_first_event:
        'send the test event from the install guide (events take a few seconds to be processed), then call verify_installation again',
      events_expired:
        'events came before (issues remain) but retention has deleted them all; send the test event from the install guide to check the SDK still reaches Errata, then call verify_installation again',
      test_event_received: 'the SDK reaches Errata; mint a per-repository triage token for day-to-day work',
      real_event_received: 'events are flowing; use whats_new and get_issue_context to work on them',
    }[verdict];
    return {
      summary: `${project.slug}: ${verdict.replace(/_/g, ' ')}. Next: ${nextStep}.`,
      result: {
        project: project.slug,
        dsnKeyExists,
        eventReceived: latestEvent !== null || verdict === 'events_expired',
        latestEvent: latestEvent && { ...latestEvent, receivedAt: latestEvent.receivedAt.toISOString() },
        expiredIssue: expiredIssue && { ...expiredIssue, lastSeen: expiredIssue.lastSeen.toISOString() },
        verdict,
        nextStep,
      },
    };
  },
});
