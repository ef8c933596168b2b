// Dispatcher, before hashing: stack-trace rules (Sentry's built-in native ones, then a
// project's) adjust each frame's category, in_app and whether it counts for grouping, after the
// built-in rules of in-app.ts, so the project has the last word. Rules run in order over every
// frame; a later rule overrides an earlier one.
import type { ExceptionValue, Frame, NormalizedEvent, Stacktrace } from '../../event/event.ts';
import { exceptionValuesFor, frameValuesFor, matcherHolds } from './match-values.ts';
import type { Matcher } from './rule-scanner.ts';
import type { StackTraceAction, StackTraceRule } from './stack-trace-rules.ts';

interface OwnedStacktrace {
  stacktrace: Stacktrace;
  exception?: ExceptionValue;
}

/** Updates the event's frames in place. */
export function applyStackTraceRules(event: NormalizedEvent, rules: readonly StackTraceRule[]): void {
  if (rules.length === 0) return;
  for (const { stacktrace, exception } of stacktracesWithOwners(event)) {
    applyToFrames(stacktrace.frames, rules, event.platform, exception);
  }
}

/**
 * In two passes, as Sentry's enhancer runs them. First the rules that change frames (a
 * category, in_app), each rule finding all the frames it matches before it changes any, so
 * that `[ category:system ] | category:system category=internals` sees a run of system frames
 * as it was. Then the rules that decide what counts for grouping, matched against the frames
 * as the first pass left them (their final categories and in_app).
 */
function applyToFrames(frames: Frame[], rules: readonly StackTraceRule[], platform: string, exception?: ExceptionValue): void {
  for (const rule of rules) {
    const appActions = rule.actions.filter((action) => action.flag === 'app');
    if (rule.category === undefined && appActions.length === 0) continue;
    const matched = frames.flatMap((_, index) => (ruleMatches(rule, frames, index, platform, exception) ? [index] : []));
    for (const index of matched) {
      if (rule.category !== undefined) frames[index]!.data = { ...frames[index]!.data, category: rule.category };
      for (const action of appActions) for (const frame of targets(frames, index, action)) setInApp(frame, action.value);
    }
  }
  for (const rule of rules) {
    const groupActions = rule.actions.filter((action) => action.flag === 'group');
    if (groupActions.length === 0) continue;
    for (let index = 0; index < frames.length; index++) {
      if (!ruleMatches(rule, frames, index, platform, exception)) continue;
      for (const action of groupActions) {
        for (const frame of targets(frames, index, action)) frame.data = { ...frame.data, ignored_for_grouping: !action.value };
      }
    }
  }
}

/** The frames an action applies to: the matched one, those towards the crash (up) or away from it. */
function targets(frames: Frame[], index: number, action: StackTraceAction): Frame[] {
  return action.range === 'self' ? [frames[index]!] : action.range === 'up' ? frames.slice(index + 1) : frames.slice(0, index);
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
    true,
  );
}

function setInApp(frame: Frame, value: boolean): void {
  if (frame.in_app !== value && frame.data?.orig_in_app === undefined)
    frame.data = { ...frame.data, orig_in_app: frame.in_app ?? -1 };
  frame.in_app = value;
}
