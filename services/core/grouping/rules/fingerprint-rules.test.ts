import { describe, expect, it } from 'vitest';
import { parseFingerprintRules } from './fingerprint-rules.ts';
import { RuleSyntaxError } from './rule-scanner.ts';

function syntaxError(text: string): RuleSyntaxError {
  try {
    parseFingerprintRules(text, { limited: true });
  } catch (error) {
    if (error instanceof RuleSyntaxError) return error;
    throw error;
  }
  throw new Error('expected a RuleSyntaxError');
}

describe('parseFingerprintRules', () => {
  it('parses Sentry documentation examples, with comments and blank lines', () => {
    const rules = parseFingerprintRules(
      [
        '# You can use comments to explain the rules.',
        'error.type:DatabaseUnavailable -> system-down',
        '',
        'stack.function:"database connect" -> database-error  # trailing comment',
        'error.value:"connection refused*" !tags.region:eu* -> {{ default }}, {{ tags.region }}',
        'logger:my.logger level:error -> my-logger {{ logger }}',
      ].join('\n'),
    );
    expect(rules).toEqual([
      { matchers: [{ key: 'type', pattern: 'DatabaseUnavailable', negated: false }], fingerprint: ['system-down'] },
      { matchers: [{ key: 'function', pattern: 'database connect', negated: false }], fingerprint: ['database-error'] },
      {
        matchers: [
          { key: 'value', pattern: 'connection refused*', negated: false },
          { key: 'tags.region', pattern: 'eu*', negated: true },
        ],
        fingerprint: ['{{ default }}', '{{ tags.region }}'],
      },
      {
        matchers: [
          { key: 'logger', pattern: 'my.logger', negated: false },
          { key: 'level', pattern: 'error', negated: false },
        ],
        fingerprint: ['my-logger', '{{ logger }}'],
      },
    ]);
  });

  it('normalizes variable spacing and reads the title attribute', () => {
    const [rule] = parseFingerprintRules('type:ConnectionError -> {{type}} "two words" title="Connection failed"');
    expect(rule).toEqual({
      matchers: [{ key: 'type', pattern: 'ConnectionError', negated: false }],
      fingerprint: ['{{ type }}', 'two words'],
      title: 'Connection failed',
    });
  });

  it('reads quoted values with escapes', () => {
    const [rule] = parseFingerprintRules('message:"say \\"hi\\"" -> greeting');
    expect(rule!.matchers[0]!.pattern).toBe('say "hi"');
  });

  it('names the line and column of a missing arrow', () => {
    const error = syntaxError('# header\n\nerror.type:A -> a\nerror.type:B b');
    expect([error.line, error.column]).toEqual([4, 14]);
    expect(error.message).toBe('fingerprint rules, line 4, column 14: expected "->" and then a fingerprint, found "b"');
    expect(error.code).toBe('invalid_input');
  });

  it("refuses a value longer than 1,024 characters or with more than 64 runs of *, which would bind a matcher's memory and time", () => {
    expect(syntaxError(`message:"${'a'.repeat(1025)}" -> x`).message).toBe(
      'fingerprint rules, line 1, column 9: the value after "message:" has 1025 characters; at most 1024 are allowed',
    );
    expect(syntaxError(`message:${'*a'.repeat(65)} -> x`).message).toBe(
      'fingerprint rules, line 1, column 9: the value after "message:" has 65 runs of *; at most 64 are allowed',
    );
    expect(parseFingerprintRules(`message:${'*a'.repeat(64)} -> x`, { limited: true })).toHaveLength(1);
    // Rules stored before the limits still load, so the project keeps grouping by them.
    expect(parseFingerprintRules(`message:"${'a'.repeat(1025)}" -> x`)).toHaveLength(1);
  });

  it('names an unknown matcher and lists the known ones', () => {
    const error = syntaxError('error.kind:A -> a');
    expect([error.line, error.column]).toEqual([1, 1]);
    expect(error.message).toMatch(/expected a known matcher name, not "error.kind" \(known: type, error.type, /);
  });

  it('refuses an empty fingerprint, an unknown variable, an unknown attribute and an open quote', () => {
    expect(syntaxError('type:A ->').message).toBe(
      'fingerprint rules, line 1, column 10: expected a fingerprint after "->", such as my-group or {{ default }}, found the end of the line',
    );
    expect(syntaxError('type:A -> {{ colour }}').column).toBe(11);
    expect(syntaxError('type:A -> a colour="red"').message).toMatch(/expected the attribute title="\.\.\.", not "colour"/);
    expect(syntaxError('message:"open -> a').message).toMatch(/column 9: expected a closing " for the quoted value/);
    expect(syntaxError('-> a').message).toMatch(/column 1: expected at least one matcher/);
    expect(syntaxError('type: -> a').message).toMatch(/column 6: expected a value after "type:"/);
  });
});
