// Alert rules (per project) and webhook channels (per organization): their shapes, and the
// validation of what the management API and the CLI accept for them. A rule names a trigger,
// optional filters on the event (environment, minimum level) and the channels it alerts.
import { z } from 'zod';
import { LEVELS, type Level } from '../event/level.ts';
import { strictObject } from '../strict-object.ts';

export const TRIGGERS = [
  'new_issue',
  'regression',
  'frequent',
  'many_users',
  'milestone',
  'every_occurrence',
  'new_release',
] as const;
export type Trigger = (typeof TRIGGERS)[number];

/** Event counts an issue alerts on by default with the `milestone` trigger. */
export const DEFAULT_MILESTONES = [10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000];
const MAX_WINDOW_MINUTES = 7 * 24 * 60;

export interface AlertRule {
  id: number;
  projectId: number;
  name: string;
  trigger: Trigger;
  channelIds: number[];
  environment: string | null;
  minLevel: Level | null;
  /** frequent: more than this many events; many_users: more than this many users. */
  threshold: number | null;
  /** frequent (required), many_users (optional): the window they count in. */
  windowMinutes: number | null;
  /** milestone: the counts to alert at; null for DEFAULT_MILESTONES. */
  milestones: number[] | null;
  createdAt: Date;
}

/** When a channel sends its digest: every day at `hour` o'clock in `timeZone`. */
export interface DigestSchedule {
  hour: number;
  timeZone: string;
}

export interface AlertChannel {
  id: number;
  organizationId: number;
  name: string;
  type: 'webhook';
  url: string;
  digest: DigestSchedule | null;
  createdAt: Date;
}

const name = z.string().trim().min(1, 'name must not be empty').max(100, 'name is at most 100 characters');

const webhookUrl = z
  .string()
  .max(2000, 'url is at most 2000 characters')
  .superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    const problem = !url
      ? 'url must be an absolute URL, e.g. https://hooks.example.com/errata'
      : url.protocol !== 'https:'
        ? 'url must start with https:// (alerts are only sent over TLS)'
        : url.username !== '' || url.password !== ''
          ? 'url must not carry a user or password; receivers check the signature instead'
          : undefined;
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const timeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}, 'timeZone must be an IANA time zone such as "UTC" or "Europe/Berlin"');

const digestSchedule = strictObject({ hour: z.number().int().min(0).max(23), timeZone });

export const channelInput = strictObject({ name, type: z.literal('webhook').default('webhook'), url: webhookUrl });
export const channelPatch = strictObject({ name, url: webhookUrl, digest: digestSchedule.nullable() }).partial();

const ruleFields = strictObject({
  name,
  trigger: z.enum(TRIGGERS),
  channelIds: z.array(z.number().int().positive()).min(1, 'channelIds must name at least one channel').max(20),
  environment: z.string().min(1).max(200).nullable().optional(),
  minLevel: z.enum(LEVELS).nullable().optional(),
  threshold: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
  windowMinutes: z.number().int().min(1).max(MAX_WINDOW_MINUTES).nullable().optional(),
  milestones: z.array(z.number().int().min(1)).min(1).max(50).nullable().optional(),
});

type RuleInput = z.infer<typeof ruleFields>;
export const ruleInput = ruleFields.superRefine(checkTriggerSettings);
export const rulePatch = ruleFields.partial();

/** The settings each trigger needs, and those it does not take. */
function checkTriggerSettings(rule: Partial<RuleInput>, ctx: z.RefinementCtx): void {
  const { trigger } = rule;
  const needs = (field: 'threshold' | 'windowMinutes', why: string) => {
    if (rule[field] == null) ctx.addIssue({ code: 'custom', path: [field], message: `${trigger} needs ${field} (${why})` });
  };
  const refuses = (field: 'threshold' | 'windowMinutes' | 'milestones') => {
    if (rule[field] != null) {
      ctx.addIssue({ code: 'custom', path: [field], message: `${trigger} takes no ${field} (leave it out, or send null)` });
    }
  };
  if (trigger === 'frequent') {
    needs('threshold', 'alert when more than this many events arrive');
    needs('windowMinutes', 'within this many minutes');
  } else if (trigger === 'many_users') {
    needs('threshold', 'alert when more than this many distinct users are affected');
  } else {
    refuses('threshold');
    refuses('windowMinutes');
  }
  if (trigger !== 'milestone') refuses('milestones');
}
