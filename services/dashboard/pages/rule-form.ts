// An alert rule's form on the Alert rules pages, as typed text: read from a POST, filled from a
// rule, turned into the input core validates (core/alerts/alert-rules.ts, the same rules as the
// management API and the CLI), and core's problems turned into a message per field saying what
// was wrong and how to fix it. Every trigger's settings have inputs of their own; only the chosen
// trigger's are read, so the form works without JavaScript.
import { DEFAULT_MILESTONES, ruleProblems, TRIGGERS, type AlertChannel, type AlertRule, type Trigger } from '../../core/alerts/alert-rules.ts';

export interface RuleFormValues {
  name: string;
  trigger: string;
  frequentThreshold: string;
  frequentWindow: string;
  usersThreshold: string;
  usersWindow: string;
  milestones: string;
  environment: string;
  minLevel: string;
  channelIds: string[];
  enabled: boolean;
}

/** A message per input id (`name`, `frequent-threshold`, `channels`, ...). */
export type RuleFormProblems = Record<string, string>;

export const EMPTY_RULE_FORM: RuleFormValues = {
  name: '',
  trigger: 'new_issue',
  frequentThreshold: '100',
  frequentWindow: '5',
  usersThreshold: '',
  usersWindow: '',
  milestones: '',
  environment: '',
  minLevel: '',
  channelIds: [],
  enabled: true,
};

export function ruleFormOf(rule: AlertRule): RuleFormValues {
  const text = (n: number | null) => (n === null ? '' : String(n));
  return {
    ...EMPTY_RULE_FORM,
    name: rule.name,
    trigger: rule.trigger,
    ...(rule.trigger === 'frequent' ? { frequentThreshold: text(rule.threshold), frequentWindow: text(rule.windowMinutes) } : {}),
    ...(rule.trigger === 'many_users' ? { usersThreshold: text(rule.threshold), usersWindow: text(rule.windowMinutes) } : {}),
    milestones: rule.milestones?.join(', ') ?? '',
    environment: rule.environment ?? '',
    minLevel: rule.minLevel ?? '',
    channelIds: rule.channelIds.map(String),
    enabled: rule.enabled,
  };
}

export function ruleFormFrom(form: URLSearchParams): RuleFormValues {
  const text = (name: string) => form.get(name) ?? '';
  return {
    name: text('name'),
    trigger: text('trigger'),
    frequentThreshold: text('frequentThreshold'),
    frequentWindow: text('frequentWindow'),
    usersThreshold: text('usersThreshold'),
    usersWindow: text('usersWindow'),
    milestones: text('milestones'),
    environment: text('environment'),
    minLevel: text('minLevel'),
    channelIds: form.getAll('channel'),
    enabled: form.get('enabled') === 'on',
  };
}

/** A whole number as a number; anything else stays text, for core to refuse and the form to name. */
const count = (text: string): number | string | null => {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  return /^\d{1,12}$/.test(trimmed) ? Number(trimmed) : trimmed;
};

const isTrigger = (value: string): value is Trigger => (TRIGGERS as readonly string[]).includes(value);

/** The input for core: only the chosen trigger's settings, empty filters as none. */
export function ruleInputOf(values: RuleFormValues): Record<string, unknown> {
  const trigger = values.trigger;
  const milestones = values.milestones.split(/[\s,]+/).filter((part) => part !== '');
  return {
    name: values.name,
    trigger,
    channelIds: values.channelIds.map(count),
    environment: values.environment.trim() === '' ? null : values.environment.trim(),
    minLevel: values.minLevel === '' ? null : values.minLevel,
    threshold: trigger === 'frequent' ? count(values.frequentThreshold) : trigger === 'many_users' ? count(values.usersThreshold) : null,
    windowMinutes: trigger === 'frequent' ? count(values.frequentWindow) : trigger === 'many_users' ? count(values.usersWindow) : null,
    milestones: trigger === 'milestone' && milestones.length > 0 ? milestones.map(count) : null,
    enabled: values.enabled,
  };
}

/** How to put each field right, after what was wrong with it. */
const HOW: Record<string, string> = {
  name: 'Give the rule a name of up to 100 characters; its alerts carry it.',
  trigger: 'Pick one of the triggers listed.',
  threshold: 'Write a whole number from 1 to 1000000000: the rule fires when the count goes above it.',
  windowMinutes: 'Write a whole number of minutes from 1 to 10080 (7 days).',
  milestones: `Write event counts separated by commas, e.g. 10, 100, 1000 (at most 50), or leave it empty for ${DEFAULT_MILESTONES.slice(0, 4).join(', ')} and so on.`,
  environment: 'Write an environment name of up to 200 characters, or leave it empty for every environment.',
  minLevel: 'Pick a level from the list, or "Any level".',
  channelIds: 'Pick at least one of the channels listed; the Alert channels page creates one.',
};

const LABELS: Record<string, string> = {
  name: 'The name',
  threshold: 'The threshold',
  windowMinutes: 'The window',
  milestones: 'The milestones',
  environment: 'The environment',
  minLevel: 'The level',
  channelIds: 'The channels',
  trigger: 'The trigger',
};

/** The input a core field's message goes beside, for the chosen trigger. */
function inputOf(field: string, trigger: string): string {
  if (field === 'threshold') return trigger === 'many_users' ? 'users-threshold' : 'frequent-threshold';
  if (field === 'windowMinutes') return trigger === 'many_users' ? 'users-window' : 'frequent-window';
  if (field === 'channelIds') return 'channels';
  if (field === 'minLevel') return 'min-level';
  return field;
}

/** What core says is wrong, as a sentence about the form's field. */
function whatWasWrong(field: string, message: string, input: Record<string, unknown>): string {
  const value = input[field];
  if (/ needs /.test(message)) return `${LABELS[field]} is needed for this trigger.`;
  if (typeof value === 'string' && (field === 'threshold' || field === 'windowMinutes')) return `"${value}" is not a whole number.`;
  if (field === 'milestones' && Array.isArray(value) && value.some((v) => typeof v === 'string')) {
    return `"${value.find((v) => typeof v === 'string')}" is not a whole number.`;
  }
  if (field === 'channelIds' && Array.isArray(value) && value.length === 0) return 'No channel is picked.';
  const rest = message.startsWith(`${field} `) ? message.slice(field.length + 1) : `was refused: ${message}`;
  return `${LABELS[field] ?? field} ${rest}.`;
}

/**
 * Every problem of the form, by input, or none. A channel must be one of `channels`, the
 * organization's own: a form edited to name another organization's channel is refused here.
 */
export function ruleFormProblems(values: RuleFormValues, channels: AlertChannel[]): RuleFormProblems {
  const input = ruleInputOf(values);
  const problems: RuleFormProblems = {};
  if (!isTrigger(values.trigger)) {
    problems.trigger = `"${values.trigger.slice(0, 40)}" is no trigger. ${HOW.trigger}`;
  }
  const known = new Set(channels.map((c) => String(c.id)));
  const unknown = values.channelIds.filter((id) => !known.has(id.trim())).map((id) => id.slice(0, 12));
  if (unknown.length > 0) {
    const which = unknown.length === 1 ? `Channel ${unknown[0]} is` : `Channels ${unknown.join(', ')} are`;
    problems.channels = `${which} not one of this organization's. ${HOW.channelIds}`;
  }
  for (const { field, message } of ruleProblems(input)) {
    const id = inputOf(field, values.trigger);
    if (!problems[id]) problems[id] = `${whatWasWrong(field, message, input)} ${HOW[field] ?? ''}`.trim();
  }
  return problems;
}
