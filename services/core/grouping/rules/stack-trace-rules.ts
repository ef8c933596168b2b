// A project's stack-trace rules in Sentry's text syntax, one per line:
//   stack.function:panic_handler -app
//   family:javascript path:**/node_modules/** -app
//   [ function:dispatch ] | function:handle* ^-group -group
// Frame matchers (all must match one frame; optionally its caller `[..] |` or callee `| [..]`)
// then actions: +app/-app set whether the frame is the application's, +group/-group whether it
// counts for grouping; `^` applies to the frames above it (towards the crash), `v` below.
// `category=<name>` files the frame under a category that later rules match with
// `category:<name>` (Sentry's built-in native rules are written that way).
import { LineScanner, ruleLines, type Matcher } from './rule-scanner.ts';

export interface StackTraceAction {
  flag: 'app' | 'group';
  value: boolean;
  /** Which frames: the matched one, those towards the crash (up), or away from it (down). */
  range: 'self' | 'up' | 'down';
}

export interface StackTraceRule {
  matchers: Matcher[];
  caller?: Matcher;
  callee?: Matcher;
  actions: StackTraceAction[];
  /** The category `category=<name>` files the frame under. */
  category?: string;
}

const STACK_TRACE_MATCHER_KEYS: ReadonlyMap<string, string> = new Map([
  ['family', 'family'],
  ['path', 'path'],
  ['stack.abs_path', 'path'],
  ['module', 'module'],
  ['stack.module', 'module'],
  ['function', 'function'],
  ['stack.function', 'function'],
  ['package', 'package'],
  ['stack.package', 'package'],
  ['app', 'app'],
  ['stack.app', 'app'],
  ['type', 'type'],
  ['error.type', 'type'],
  ['value', 'value'],
  ['error.value', 'value'],
  ['mechanism', 'mechanism'],
  ['error.mechanism', 'mechanism'],
  ['category', 'category'],
]);

// Bare values stop at brackets and bars, which delimit caller and callee matchers.
const UNQUOTED = /[^\s|[\]]+/;
const FLAG_ACTION = /[v^]?[+-][A-Za-z]+/;
const SUPPORTED_ACTIONS = '+app, -app, +group, -group, each optionally prefixed by ^ or v, or category=<name>';

/**
 * Parses the whole text; throws RuleSyntaxError naming the first bad line and column. `limited`
 * (when rules are set) also holds each value to the size limits: rules stored before them still
 * load, rather than the project's whole set being dropped.
 */
export function parseStackTraceRules(text: string, options: { limited?: boolean } = {}): StackTraceRule[] {
  return ruleLines(text).map((line) =>
    parseRule(new LineScanner('stack-trace rules', line.number, line.text, options.limited ?? false)),
  );
}

function parseRule(scanner: LineScanner): StackTraceRule {
  const rule: StackTraceRule = { matchers: [], actions: [] };
  scanner.skipSpace();
  if (scanner.take('[')) {
    rule.caller = bracketed(scanner);
    scanner.skipSpace();
    if (!scanner.take('|')) throw scanner.error('"|" after the caller matcher [ ... ]');
  }
  while (!scanner.atEnd() && !isAction(scanner) && scanner.peek() !== '|') {
    rule.matchers.push(scanner.takeMatcher(STACK_TRACE_MATCHER_KEYS, UNQUOTED));
  }
  if (rule.matchers.length === 0) throw scanner.error('a frame matcher such as stack.function:panic_handler');
  if (scanner.take('|')) {
    scanner.skipSpace();
    if (!scanner.take('[')) throw scanner.error('"[" and a callee matcher after "|"');
    rule.callee = bracketed(scanner);
  }
  while (!scanner.atEnd()) {
    const category = takeCategory(scanner);
    if (category !== undefined) rule.category = category;
    else rule.actions.push(takeAction(scanner));
  }
  if (rule.actions.length === 0 && rule.category === undefined) throw scanner.error(`an action (${SUPPORTED_ACTIONS})`);
  return rule;
}

function bracketed(scanner: LineScanner): Matcher {
  const matcher = scanner.takeMatcher(STACK_TRACE_MATCHER_KEYS, UNQUOTED);
  scanner.skipSpace();
  if (!scanner.take(']')) throw scanner.error('"]" closing the caller or callee matcher');
  return matcher;
}

function isAction(scanner: LineScanner): boolean {
  const rest = scanner.rest();
  return /^[v^]?[+-]/.test(rest) || /^[A-Za-z-]+=/.test(rest);
}

/** `category=<name>`, the name bare or quoted; undefined when the next action is another one. */
function takeCategory(scanner: LineScanner): string | undefined {
  scanner.skipSpace();
  if (!scanner.take('category=')) return undefined;
  const name = scanner.peek() === '"' ? scanner.takeQuoted() : scanner.takeMatch(/\S+/);
  if (!name) throw scanner.error('a category name after "category="');
  return name;
}

function takeAction(scanner: LineScanner): StackTraceAction {
  scanner.skipSpace();
  const start = scanner.column - 1;
  const variable = scanner.takeMatch(/[A-Za-z-]+=\S*/);
  if (variable !== undefined) {
    const name = variable.split('=')[0];
    throw scanner.error(`an action Errata supports (${SUPPORTED_ACTIONS}); "${name}=" is not supported`, start);
  }
  const token = scanner.takeMatch(FLAG_ACTION);
  const match = token ? /^([v^]?)([+-])(app|group)$/.exec(token) : null;
  if (!match) throw scanner.error(`an action (${SUPPORTED_ACTIONS})`, start);
  return {
    flag: match[3] as 'app' | 'group',
    value: match[2] === '+',
    range: match[1] === '^' ? 'up' : match[1] === 'v' ? 'down' : 'self',
  };
}
