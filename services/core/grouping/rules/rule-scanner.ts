// The shared lexical layer of a project's grouping rules (fingerprint rules and stack-trace
// rules, Sentry's text syntax): one rule per line, `#` comments, `key:value` matchers with an
// optional `!`, quoted or bare values. Each parser walks a line with a LineScanner, so an error
// can name the line and column (both 1-based) and what was expected there.
import { UserInputError } from '../../errors.ts';

type RuleKind = 'fingerprint rules' | 'stack-trace rules';

/** A rule text that does not parse: says where, what was expected and what was found. */
export class RuleSyntaxError extends UserInputError {
  readonly line: number;
  readonly column: number;
  constructor(kind: RuleKind, line: number, column: number, problem: string) {
    super(`${kind}, line ${line}, column ${column}: ${problem}`);
    this.line = line;
    this.column = column;
  }
}

/** A matcher's value: far longer than any path, function or message pattern a rule needs. */
const MAX_PATTERN_CHARS = 1024;
const MAX_PATTERN_RUNS = 64;

export interface Matcher {
  /** The canonical key (aliases such as `error.type` become `type`). */
  key: string;
  pattern: string;
  negated: boolean;
}

/** The lines that hold a rule (not blank, not a comment), with their 1-based numbers. */
export function ruleLines(text: string): Array<{ number: number; text: string }> {
  return text
    .split(/\r\n|\r|\n/)
    .map((line, index) => ({ number: index + 1, text: line }))
    .filter((line) => {
      const trimmed = line.text.trim();
      return trimmed !== '' && !trimmed.startsWith('#');
    });
}

export class LineScanner {
  private position = 0;
  constructor(
    readonly kind: RuleKind,
    readonly lineNumber: number,
    readonly text: string,
    /** Holds values to MAX_PATTERN_CHARS and MAX_PATTERN_RUNS: rules being set, not rules stored before those limits. */
    private readonly limited = false,
  ) {}

  /** Skips spaces and tabs; a `#` starts a comment that runs to the end of the line. */
  skipSpace(): void {
    while (this.position < this.text.length && /[ \t]/.test(this.text[this.position]!)) this.position++;
    if (this.text[this.position] === '#') this.position = this.text.length;
  }

  atEnd(): boolean {
    this.skipSpace();
    return this.position >= this.text.length;
  }

  peek(length = 1): string {
    return this.text.slice(this.position, this.position + length);
  }

  /** The rest of the line from here (after spaces). */
  rest(): string {
    this.skipSpace();
    return this.text.slice(this.position);
  }

  take(literal: string): boolean {
    if (!this.text.startsWith(literal, this.position)) return false;
    this.position += literal.length;
    return true;
  }

  /** The longest run matching the (sticky) pattern here, or undefined. */
  takeMatch(pattern: RegExp): string | undefined {
    const sticky = new RegExp(pattern.source, 'y' + pattern.flags.replace(/[gy]/g, ''));
    sticky.lastIndex = this.position;
    const match = sticky.exec(this.text);
    if (!match || match[0] === '') return undefined;
    this.position += match[0].length;
    return match[0];
  }

  /** A double-quoted string with backslash escapes; the caller checked that a quote is next. */
  takeQuoted(): string {
    const start = this.position;
    this.position++;
    let value = '';
    while (this.position < this.text.length) {
      const char = this.text[this.position]!;
      if (char === '\\' && this.position + 1 < this.text.length) {
        value += this.text[this.position + 1];
        this.position += 2;
        continue;
      }
      if (char === '"') {
        this.position++;
        return value;
      }
      value += char;
      this.position++;
    }
    this.position = start;
    throw this.error('a closing " for the quoted value that starts here');
  }

  /** `!`? key `:` value, where the value is quoted or runs to the next space (or `stop`). */
  takeMatcher(keys: ReadonlyMap<string, string>, unquoted: RegExp): Matcher {
    this.skipSpace();
    const start = this.position;
    const negated = this.take('!');
    const key = this.peek() === '"' ? this.takeQuoted() : this.takeMatch(/[A-Za-z0-9_.-]+/);
    if (key === undefined) throw this.error('a matcher such as error.type:ValueError', start);
    const isTag = key.startsWith('tags.') && key !== 'tags.*' && key.length > 5 && keys.has('tags.*');
    const canonical = isTag ? key : key === 'tags.*' ? undefined : keys.get(key);
    if (canonical === undefined) {
      this.position = negated ? start + 1 : start;
      throw this.error(`a known matcher name, not "${key}" (known: ${knownNames(keys)})`);
    }
    if (!this.take(':')) throw this.error(`":" after the matcher name "${key}"`);
    const valueAt = this.position;
    const pattern = this.peek() === '"' ? this.takeQuoted() : this.takeMatch(unquoted);
    if (pattern === undefined) throw this.error(`a value after "${key}:" (quote it if it contains spaces)`);
    // Every value may be a glob, compiled for each project that has it and tested against text an
    // SDK sends: its size, and its number of runs, bound the matcher's memory and time.
    const runs = pattern.match(/\*+/g)?.length ?? 0;
    const tooLarge =
      pattern.length > MAX_PATTERN_CHARS
        ? `${pattern.length} characters; at most ${MAX_PATTERN_CHARS} are allowed`
        : runs > MAX_PATTERN_RUNS
          ? `${runs} runs of *; at most ${MAX_PATTERN_RUNS} are allowed`
          : undefined;
    if (tooLarge && this.limited)
      throw new RuleSyntaxError(this.kind, this.lineNumber, valueAt + 1, `the value after "${key}:" has ${tooLarge}`);
    return { key: canonical, pattern, negated };
  }

  /** An error at the current position (or `at`), saying what was expected and what is here. */
  error(expected: string, at = this.position): RuleSyntaxError {
    const found = at >= this.text.length ? 'the end of the line' : `"${this.text.slice(at).split(/\s/)[0]}"`;
    return new RuleSyntaxError(this.kind, this.lineNumber, at + 1, `expected ${expected}, found ${found}`);
  }

  get column(): number {
    return this.position + 1;
  }
}

function knownNames(keys: ReadonlyMap<string, string>): string {
  return [...keys.keys()].map((key) => (key === 'tags.*' ? 'tags.<name>' : key)).join(', ');
}
