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
/** The longest window `frequent` and `many_users` count in: 7 days. */
const MAX_WINDOW_MINUTES = 7 * 24 * 60;
/** The largest threshold a rule takes. */
const MAX_THRESHOLD = 1_000_000_000;
/** How many milestones a rule lists at most. */
const MAX_MILESTONES = 50;

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
  /** A disabled rule keeps its settings and fires nothing (Send test still works). */
  enabled: boolean;
  /** When it last produced an alert (a delivery queued or held back; a test does not count). */
  lastFiredAt: Date | null;
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
// A change of the hour alone keeps the channel's zone: before, the CLI's `--digest-hour` sent UTC
// for a zone it was not given, and a Berlin channel moved to UTC.
const digestChange = strictObject({ hour: digestSchedule.shape.hour, timeZone: timeZone.optional() });
export const channelPatch = strictObject({ name, url: webhookUrl, digest: digestChange.nullable() }).partial();

const ruleFields = strictObject({
  name,
  trigger: z.enum(TRIGGERS),
  channelIds: z.array(z.number().int().positive()).min(1, 'channelIds must name at least one channel').max(20),
  environment: z.string().min(1).max(200).nullable().optional(),
  minLevel: z.enum(LEVELS).nullable().optional(),
  threshold: z
    .number()
    .int('threshold must be a whole number')
    .min(1, 'threshold must be at least 1')
    .max(MAX_THRESHOLD, 'threshold is at most 1000000000')
    .nullable()
    .optional(),
  windowMinutes: z
    .number()
    .int('windowMinutes must be a whole number of minutes')
    .min(1, 'windowMinutes must be at least 1')
    .max(MAX_WINDOW_MINUTES, `windowMinutes is at most ${MAX_WINDOW_MINUTES} (7 days)`)
    .nullable()
    .optional(),
  milestones: z
    .array(z.number().int('milestones must be whole numbers').min(1, 'milestones must be at least 1'))
    .min(1, 'milestones must list at least one count')
    .max(MAX_MILESTONES, `milestones lists at most ${MAX_MILESTONES} counts`)
    .nullable()
    .optional(),
  enabled: z.boolean().optional(),
});

type RuleInput = z.infer<typeof ruleFields>;
export const ruleInput = ruleFields.superRefine((rule, ctx) => {
  for (const { field, message } of triggerSettingProblems(rule)) ctx.addIssue({ code: 'custom', path: [field], message });
});
export const rulePatch = ruleFields.partial();

/** A field of a rule and what is wrong with it, in the API's words. */
interface RuleProblem {
  field: string;
  message: string;
}

/**
 * Every problem of a whole rule at once, by field, for a form that marks each field (the API
 * stops at the first). The trigger's settings are checked even when another field is wrong.
 */
export function ruleProblems(input: unknown): RuleProblem[] {
  const parsed = ruleFields.safeParse(input ?? {});
  const problems: RuleProblem[] = parsed.success
    ? []
    : parsed.error.issues.map((issue) => ({ field: String(issue.path[0] ?? ''), message: issue.message }));
  const known = typeof input === 'object' && input !== null ? (input as Partial<RuleInput>) : {};
  for (const problem of triggerSettingProblems(known)) {
    if (!problems.some((p) => p.field === problem.field)) problems.push(problem);
  }
  return problems;
}

/** The settings each trigger needs, and those it does not take. */
function triggerSettingProblems(rule: Partial<RuleInput>): RuleProblem[] {
  const { trigger } = rule;
  const problems: RuleProblem[] = [];
  const needs = (field: 'threshold' | 'windowMinutes', why: string) => {
    if (rule[field] == null) problems.push({ field, message: `${trigger} needs ${field} (${why})` });
  };
  const refuses = (field: 'threshold' | 'windowMinutes' | 'milestones') => {
    if (rule[field] != null) problems.push({ field, message: `${trigger} takes no ${field} (leave it out, or send null)` });
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
  return problems;
}
