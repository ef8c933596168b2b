// Dispatcher, before hashing: stack-trace rules (Sentry's built-in native ones, then a
// project's) adjust each frame's category, in_app and whether it counts for grouping, after the
// built-in rules of in-app.ts, so the project has the last word. Rules run in order over every
// frame; a later rule overrides an earlier one.
import type { ExceptionValue, Frame, NormalizedEvent, Stacktrace } from '../../event/event.ts';
import { compiledMatcher, exceptionValuesFor, frameValuesFor } from './match-values.ts';
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
  const context: MatchContext = { frames, platform, exception, fields: [] };
  for (const rule of rules) {
    const { appActions, matchers } = prepared(rule);
    if (rule.category === undefined && appActions.length === 0) continue;
    const matched: number[] = [];
    for (let index = 0; index < frames.length; index++) if (ruleMatches(rule, matchers, index, context)) matched.push(index);
    for (const index of matched) {
      const frame = frames[index]!;
      if (rule.category !== undefined && frame.data?.category !== rule.category)
        frame.data = { ...frame.data, category: rule.category };
      for (const action of appActions) for (const frame of targets(frames, index, action)) setInApp(frame, action.value);
    }
  }
  for (const rule of rules) {
    const { groupActions, matchers } = prepared(rule);
    if (groupActions.length === 0) continue;
    for (let index = 0; index < frames.length; index++) {
      if (!ruleMatches(rule, matchers, index, context)) continue;
      for (const action of groupActions) {
        for (const frame of targets(frames, index, action)) {
          if (frame.data?.ignored_for_grouping !== !action.value)
            frame.data = { ...frame.data, ignored_for_grouping: !action.value };
        }
      }
    }
  }
}

interface MatchContext {
  frames: readonly Frame[];
  platform: string;
  exception: ExceptionValue | undefined;
  /** By frame index, the values of the fields no rule changes, read once (rules are many). */
  fields: Array<Record<string, Values> | undefined>;
}

interface PreparedRule {
  appActions: StackTraceAction[];
  groupActions: StackTraceAction[];
  /** The frame matchers, the family last: nearly every built-in rule starts with family:native. */
  matchers: Matcher[];
}

const preparedRules = new WeakMap<StackTraceRule, PreparedRule>();

function prepared(rule: StackTraceRule): PreparedRule {
  let ready = preparedRules.get(rule);
  if (!ready) {
    ready = {
      appActions: rule.actions.filter((action) => action.flag === 'app'),
      groupActions: rule.actions.filter((action) => action.flag === 'group'),
      matchers: [...rule.matchers].sort((a, b) => Number(a.key === 'family') - Number(b.key === 'family')),
    };
    preparedRules.set(rule, ready);
  }
  return ready;
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

function ruleMatches(rule: StackTraceRule, matchers: readonly Matcher[], index: number, context: MatchContext): boolean {
  // Frames are listed oldest first: the caller is the one before, the callee the one after.
  if (rule.caller && !frameMatches(rule.caller, index - 1, context)) return false;
  if (rule.callee && !frameMatches(rule.callee, index + 1, context)) return false;
  for (const matcher of matchers) if (!frameMatches(matcher, index, context)) return false;
  return true;
}

type Values = ReadonlyArray<string | boolean | undefined>;

interface CompiledMatcher {
  /** Where its values come from: the exception, fields rules change as they run, or fixed ones. */
  source: 'exception' | 'changing' | 'fixed';
  test: (values: Values) => boolean;
}

const EXCEPTION_KEYS = new Set(['type', 'value', 'mechanism']);
const CHANGING_KEYS = new Set(['app', 'category']);
const compiledMatchers = new WeakMap<Matcher, CompiledMatcher>();

function compiled(matcher: Matcher): CompiledMatcher {
  let ready = compiledMatchers.get(matcher);
  if (!ready) {
    const source = EXCEPTION_KEYS.has(matcher.key) ? 'exception' : CHANGING_KEYS.has(matcher.key) ? 'changing' : 'fixed';
    ready = { source, test: compiledMatcher(matcher, true) };
    compiledMatchers.set(matcher, ready);
  }
  return ready;
}

function frameMatches(matcher: Matcher, index: number, context: MatchContext): boolean {
  const frame = context.frames[index];
  if (!frame) return false;
  const { source, test } = compiled(matcher);
  if (source === 'exception') return test(exceptionValuesFor(matcher.key, context.exception));
  if (source === 'changing') return test(frameValuesFor(matcher.key, frame, context.platform));
  const fields = (context.fields[index] ??= {});
  return test((fields[matcher.key] ??= frameValuesFor(matcher.key, frame, context.platform)));
}

function setInApp(frame: Frame, value: boolean): void {
  if (frame.in_app !== value && frame.data?.orig_in_app === undefined)
    frame.data = { ...frame.data, orig_in_app: frame.in_app ?? -1 };
  frame.in_app = value;
}
