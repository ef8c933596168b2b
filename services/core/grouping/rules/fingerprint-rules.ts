// A project's fingerprint rules in Sentry's text syntax, one per line:
//   error.type:DatabaseUnavailable -> system-down
//   stack.function:"handle request" !tags.region:eu* -> {{ default }}, {{ tags.region }} title="Region failure"
// Matchers left of `->` must all match; the fingerprint right of it replaces the event's (or,
// with `{{ default }}`, refines default grouping). The dispatcher applies the first rule that
// matches (apply-fingerprint-rules.ts).
import { LineScanner, ruleLines, type Matcher } from './rule-scanner.ts';

export interface FingerprintRule {
  matchers: Matcher[];
  /** Entries as the event's `fingerprint` holds them; variables written `{{ name }}`. */
  fingerprint: string[];
  /** The issue title the rule sets, when it has `title="..."`. */
  title?: string;
}

/** Matcher names users write, and the canonical key each stands for. */
const FINGERPRINT_MATCHER_KEYS: ReadonlyMap<string, string> = new Map([
  ['type', 'type'],
  ['error.type', 'type'],
  ['value', 'value'],
  ['error.value', 'value'],
  ['message', 'message'],
  ['module', 'module'],
  ['stack.module', 'module'],
  ['path', 'path'],
  ['stack.abs_path', 'path'],
  ['function', 'function'],
  ['stack.function', 'function'],
  ['package', 'package'],
  ['stack.package', 'package'],
  ['app', 'app'],
  ['stack.app', 'app'],
  ['logger', 'logger'],
  ['level', 'level'],
  ['release', 'release'],
  ['sdk', 'sdk'],
  ['family', 'family'],
  ['tags.*', 'tags.*'],
]);

const VARIABLES = new Set([
  'default',
  'transaction',
  'message',
  'type',
  'error.type',
  'value',
  'error.value',
  'function',
  'stack.function',
  'path',
  'stack.abs_path',
  'stack.filename',
  'module',
  'stack.module',
  'package',
  'stack.package',
  'level',
  'logger',
]);

/**
 * Parses the whole text; throws RuleSyntaxError naming the first bad line and column. `limited`
 * (when rules are set) also holds each value to the size limits: rules stored before them still
 * load, rather than the project's whole set being dropped.
 */
export function parseFingerprintRules(text: string, options: { limited?: boolean } = {}): FingerprintRule[] {
  return ruleLines(text).map((line) =>
    parseRule(new LineScanner('fingerprint rules', line.number, line.text, options.limited ?? false)),
  );
}

function parseRule(scanner: LineScanner): FingerprintRule {
  const matchers: Matcher[] = [];
  while (true) {
    scanner.skipSpace();
    if (scanner.take('->')) break;
    if (scanner.atEnd()) {
      throw scanner.error(matchers.length === 0 ? 'a matcher such as error.type:ValueError' : '"->" and then a fingerprint');
    }
    // After a matcher, something that is not one is most likely a fingerprint missing its arrow.
    if (matchers.length > 0 && !/^!?("[^"]*"|[A-Za-z0-9_.-]+):/.test(scanner.rest())) {
      throw scanner.error('"->" and then a fingerprint');
    }
    matchers.push(scanner.takeMatcher(FINGERPRINT_MATCHER_KEYS, /[^\s]+/));
  }
  if (matchers.length === 0) throw scanner.error('at least one matcher before "->"', 0);
  const rule: FingerprintRule = { matchers, fingerprint: [] };
  while (!scanner.atEnd()) {
    if (scanner.take(',')) continue;
    if (scanner.peek(2) === '{{') rule.fingerprint.push(takeVariable(scanner));
    else if (scanner.peek() === '"') rule.fingerprint.push(scanner.takeQuoted());
    else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(scanner.rest())) takeAttribute(scanner, rule);
    else rule.fingerprint.push(scanner.takeMatch(/[^\s,]+/)!);
  }
  if (rule.fingerprint.length === 0) throw scanner.error('a fingerprint after "->", such as my-group or {{ default }}');
  return rule;
}

function takeVariable(scanner: LineScanner): string {
  const column = scanner.column - 1;
  const raw = scanner.takeMatch(/\{\{[^}]*\}\}/);
  if (raw === undefined) throw scanner.error('a variable closed by "}}", such as {{ default }}');
  const name = raw.slice(2, -2).trim();
  if (!VARIABLES.has(name) && !(name.startsWith('tags.') && name.length > 5)) {
    throw scanner.error(`a known variable, not "${name}" (known: ${[...VARIABLES].join(', ')}, tags.<name>)`, column);
  }
  return `{{ ${name} }}`;
}

function takeAttribute(scanner: LineScanner, rule: FingerprintRule): void {
  const column = scanner.column - 1;
  const name = scanner.takeMatch(/[A-Za-z_][A-Za-z0-9_]*/)!;
  if (name !== 'title') throw scanner.error(`the attribute title="...", not "${name}"`, column);
  scanner.take('=');
  const value = scanner.peek() === '"' ? scanner.takeQuoted() : scanner.takeMatch(/[^\s,]+/);
  if (value === undefined) throw scanner.error('a value after title=, such as title="Database unavailable"');
  rule.title = value;
}
