// Dispatcher, before hashing: the first of a project's fingerprint rules whose matchers all
// hold decides the event's fingerprint, overriding one the SDK sent (as Sentry's server rules
// do). Runs after the stack-trace rules, so `app:` sees the project's own in_app decisions.
// A frame matcher holds when any frame of any stack trace matches it.
import { ownValue } from '../../event/coerce.ts';
import type { Frame, NormalizedEvent } from '../../event/event.ts';
import { eventMessage, eventStacktraces } from '../../event/event.ts';
import type { FingerprintRule } from './fingerprint-rules.ts';
import { exceptionValuesFor, frameValuesFor, matcherHolds, platformFamily } from './match-values.ts';
import type { Matcher } from './rule-scanner.ts';

const FRAME_KEYS = new Set(['path', 'module', 'function', 'package', 'app']);

/** Sets the event's fingerprint from the first matching rule and returns that rule, if any. */
export function applyFingerprintRules(event: NormalizedEvent, rules: readonly FingerprintRule[]): FingerprintRule | undefined {
  if (rules.length === 0) return undefined;
  const rule = rules.find((candidate) =>
    candidate.matchers.every((matcher) => matcherHolds(matcher, eventValues(matcher, event))),
  );
  if (rule) event.fingerprint = [...rule.fingerprint];
  return rule;
}

function eventValues(matcher: Matcher, event: NormalizedEvent): Array<string | boolean | undefined> {
  const exceptions = event.exception?.values ?? [];
  if (FRAME_KEYS.has(matcher.key)) return allFrames(event).flatMap((frame) => frameValuesFor(matcher.key, frame, event.platform));
  if (matcher.key.startsWith('tags.')) return [ownValue(event.tags, matcher.key.slice(5))];
  switch (matcher.key) {
    case 'type':
    case 'value':
      return exceptions.flatMap((exception) => exceptionValuesFor(matcher.key, exception));
    case 'message':
      // Sentry's message matcher also looks at exception values: the two are hard to tell apart.
      return [eventMessage(event), event.logentry?.message, ...exceptions.map((exception) => exception.value)];
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
