// An alert rule in words, as the Alert rules pages show it: its trigger ("More than 100 events
// in 5 minutes"), its filters, and the choices the form offers for each trigger.
import { DEFAULT_MILESTONES, type AlertRule, type Trigger } from '../../core/alerts/alert-rules.ts';

const number = (n: number) => n.toLocaleString('en-US');
const minutes = (n: number) => `${number(n)} minute${n === 1 ? '' : 's'}`;

/** Each trigger as the form offers it: what fires it, in a few words, and when at most. */
export const TRIGGER_CHOICES: ReadonlyArray<{ trigger: Trigger; label: string; hint: string }> = [
  { trigger: 'new_issue', label: 'A new issue', hint: 'The first event of an issue. Once per issue.' },
  { trigger: 'regression', label: 'An issue regresses', hint: 'An event reopens a resolved issue. Once per regressing event.' },
  {
    trigger: 'frequent',
    label: 'An issue is frequent',
    hint: 'More than a number of events of one issue within a window. At most once per issue and window.',
  },
  {
    trigger: 'many_users',
    label: 'An issue affects many users',
    hint: 'More than a number of distinct users of one issue, over its lifetime or within a window.',
  },
  {
    trigger: 'milestone',
    label: 'An issue reaches a milestone',
    hint: `Its event count crosses ${DEFAULT_MILESTONES.slice(0, 4).map(number).join(', ')}… or the counts you list. Once per count.`,
  },
  { trigger: 'every_occurrence', label: 'Every event', hint: 'Each event of the project that passes the filters. Noisy.' },
  { trigger: 'new_release', label: 'A new release', hint: 'A release seen in the project for the first time.' },
];

export function triggerText(rule: Pick<AlertRule, 'trigger' | 'threshold' | 'windowMinutes' | 'milestones'>): string {
  switch (rule.trigger) {
    case 'frequent':
      return `More than ${number(rule.threshold ?? 0)} events in ${minutes(rule.windowMinutes ?? 0)}`;
    case 'many_users':
      return `More than ${number(rule.threshold ?? 0)} users affected${rule.windowMinutes ? ` in ${minutes(rule.windowMinutes)}` : ''}`;
    case 'milestone':
      return rule.milestones
        ? `An issue reaches ${rule.milestones.map(number).join(', ')} events`
        : `An issue reaches ${DEFAULT_MILESTONES.slice(0, 3).map(number).join(', ')}… events`;
    default:
      return TRIGGER_CHOICES.find((choice) => choice.trigger === rule.trigger)?.label ?? rule.trigger;
  }
}

export function filtersText(rule: Pick<AlertRule, 'environment' | 'minLevel'>): string {
  const parts = [
    rule.environment === null ? 'Any environment' : `Environment ${rule.environment}`,
    rule.minLevel === null ? 'any level' : rule.minLevel === 'fatal' ? 'fatal only' : `${rule.minLevel} or worse`,
  ];
  return parts.join(', ');
}
