// Dispatcher, before hashing: a project's stack-trace rules adjust each frame's in_app and
// whether it counts for grouping, after the built-in rules (in-app.ts), so the project has
// the last word. Rules run in order over every frame; a later rule overrides an earlier one.
import type { ExceptionValue, Frame, NormalizedEvent, Stacktrace } from '../../event/event.ts';
import { exceptionValuesFor, frameValuesFor, matcherHolds } from './match-values.ts';
import type { Matcher } from './rule-scanner.ts';
import type { StackTraceRule } from './stack-trace-rules.ts';

interface OwnedStacktrace {
  stacktrace: Stacktrace;
  exception?: ExceptionValue;
}

/** Updates the event's frames in place. */
export function applyStackTraceRules(event: NormalizedEvent, rules: readonly StackTraceRule[]): void {
  if (rules.length === 0) return;
  for (const { stacktrace, exception } of stacktracesWithOwners(event)) {
    const frames = stacktrace.frames;
    for (const rule of rules) {
      for (let index = 0; index < frames.length; index++) {
        if (!ruleMatches(rule, frames, index, event.platform, exception)) continue;
        for (const action of rule.actions) {
          const targets =
            action.range === 'self' ? [frames[index]!] : action.range === 'up' ? frames.slice(index + 1) : frames.slice(0, index);
          for (const frame of targets) setFlag(frame, action.flag, action.value);
        }
      }
    }
  }
}

function stacktracesWithOwners(event: NormalizedEvent): OwnedStacktrace[] {
  const out: OwnedStacktrace[] = [];
  for (const exception of event.exception?.values ?? [])
    if (exception.stacktrace) out.push({ stacktrace: exception.stacktrace, exception });
  if (event.stacktrace) out.push({ stacktrace: event.stacktrace });
  for (const thread of event.threads?.values ?? []) {
    const stacktrace = (thread as { stacktrace?: Stacktrace }).stacktrace;
    if (stacktrace) out.push({ stacktrace });
  }
  return out;
}

function ruleMatches(
  rule: StackTraceRule,
  frames: readonly Frame[],
  index: number,
  platform: string,
  exception: ExceptionValue | undefined,
): boolean {
  // Frames are listed oldest first: the caller is the one before, the callee the one after.
  if (rule.caller && !frameMatches(rule.caller, frames[index - 1], platform, exception)) return false;
  if (rule.callee && !frameMatches(rule.callee, frames[index + 1], platform, exception)) return false;
  return rule.matchers.every((matcher) => frameMatches(matcher, frames[index], platform, exception));
}

function frameMatches(
  matcher: Matcher,
  frame: Frame | undefined,
  platform: string,
  exception: ExceptionValue | undefined,
): boolean {
  if (!frame) return false;
  const exceptionKey = matcher.key === 'type' || matcher.key === 'value' || matcher.key === 'mechanism';
  return matcherHolds(
    matcher,
    exceptionKey ? exceptionValuesFor(matcher.key, exception) : frameValuesFor(matcher.key, frame, platform),
  );
}

function setFlag(frame: Frame, flag: 'app' | 'group', value: boolean): void {
  if (flag === 'group') {
    frame.data = { ...frame.data, ignored_for_grouping: !value };
    return;
  }
  if (frame.in_app !== value && frame.data?.orig_in_app === undefined)
    frame.data = { ...frame.data, orig_in_app: frame.in_app ?? -1 };
  frame.in_app = value;
}
