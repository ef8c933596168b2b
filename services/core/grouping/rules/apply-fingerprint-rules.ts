// Dispatcher, before hashing: the first of a project's fingerprint rules whose matchers all
// hold decides the event's fingerprint, overriding one the SDK sent (as Sentry's server rules
// do). Runs after the stack-trace rules, so `app:` sees the project's own in_app decisions.
// As in Sentry, matchers are grouped by what they look at, and one single item must satisfy
// every matcher of its group, a negated one included: `function:charge path:**/billing/**`
// needs one frame that is both, and `!path:**/vendor/**` holds when some frame is outside vendor.
// A group with no items (no frames) holds for no matcher.
import type { Frame, NormalizedEvent } from '../../event/event.ts';
import { eventMessage, eventStacktraces } from '../../event/event.ts';
import { eventTag } from '../event-tag.ts';
import type { FingerprintRule } from './fingerprint-rules.ts';
import { exceptionValuesFor, frameValuesFor, matcherHolds, platformFamily } from './match-values.ts';
import type { Matcher } from './rule-scanner.ts';

const FRAME_KEYS = new Set(['path', 'module', 'function', 'package', 'app']);
const EXCEPTION_KEYS = new Set(['type', 'value']);

/** One thing matchers look at (a frame, an exception, the event): a matcher's values in it. */
type Item = (matcher: Matcher) => Array<string | boolean | undefined>;

/** Sets the event's fingerprint from the first matching rule and returns that rule, if any. */
export function applyFingerprintRules(event: NormalizedEvent, rules: readonly FingerprintRule[]): FingerprintRule | undefined {
  if (rules.length === 0) return undefined;
  const items = new Map<string, Item[]>();
  const itemsOf = (group: string) => {
    let found = items.get(group);
    if (!found) items.set(group, (found = eventItems(group, event)));
    return found;
  };
  const rule = rules.find((candidate) =>
    [...byGroup(candidate.matchers)].every(([group, matchers]) =>
      itemsOf(group).some((item) => matchers.every((matcher) => matcherHolds(matcher, item(matcher)))),
    ),
  );
  if (rule) event.fingerprint = [...rule.fingerprint];
  return rule;
}

function groupOf(key: string): string {
  if (FRAME_KEYS.has(key)) return 'frames';
  if (EXCEPTION_KEYS.has(key)) return 'exceptions';
  return key;
}

function byGroup(matchers: readonly Matcher[]): Map<string, Matcher[]> {
  const groups = new Map<string, Matcher[]>();
  for (const matcher of matchers) {
    const group = groupOf(matcher.key);
    groups.set(group, [...(groups.get(group) ?? []), matcher]);
  }
  return groups;
}

function eventItems(group: string, event: NormalizedEvent): Item[] {
  const exceptions = event.exception?.values ?? [];
  switch (group) {
    case 'frames':
      return allFrames(event).map((frame) => (matcher) => frameValuesFor(matcher.key, frame, event.platform));
    case 'exceptions':
      return exceptions.map((exception) => (matcher) => exceptionValuesFor(matcher.key, exception));
    case 'message':
      // Sentry's message matcher also looks at exception values, each one on its own: the two
      // are hard to tell apart.
      // An event with no message and no exception has no item: `!message:foo` holds for none.
      return [
        ...(eventMessage(event) || event.logentry?.message ? [() => [eventMessage(event), event.logentry?.message]] : []),
        ...exceptions.map((exception) => () => [exception.value]),
      ];
    default:
      return [(matcher) => eventValues(matcher, event)];
  }
}

/** The values of a matcher that looks at the event as a whole. */
function eventValues(matcher: Matcher, event: NormalizedEvent): Array<string | boolean | undefined> {
  if (matcher.key.startsWith('tags.')) return [eventTag(event, matcher.key.slice(5))];
  switch (matcher.key) {
    case 'logger':
      return [event.logger];
    case 'level':
      return [event.level];
    case 'release':
      return [event.release];
    case 'sdk':
      return [event.sdk?.name];
    case 'family':
      return [platformFamily(event.platform)];
    default:
      return [];
  }
}

function allFrames(event: NormalizedEvent): Frame[] {
  return eventStacktraces(event).flatMap((stacktrace) => stacktrace.frames);
}
