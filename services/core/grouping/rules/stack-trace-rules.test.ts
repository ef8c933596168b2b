import { describe, expect, it } from 'vitest';
import { RuleSyntaxError } from './rule-scanner.ts';
import { parseStackTraceRules } from './stack-trace-rules.ts';

function syntaxError(text: string): RuleSyntaxError {
  try {
    parseStackTraceRules(text);
  } catch (error) {
    if (error instanceof RuleSyntaxError) return error;
    throw error;
  }
  throw new Error('expected a RuleSyntaxError');
}

describe('parseStackTraceRules', () => {
  it('parses Sentry documentation examples', () => {
    const rules = parseStackTraceRules(
      [
        '# mark the panic handler as not ours',
        'stack.function:panic_handler -app',
        'family:javascript path:**/node_modules/** -app',
        'stack.module:"my app.*" +app -group',
        '!app:yes path:**/vendor/** v-group ^+group',
      ].join('\n'),
    );
    expect(rules).toEqual([
      {
        matchers: [{ key: 'function', pattern: 'panic_handler', negated: false }],
        actions: [{ flag: 'app', value: false, range: 'self' }],
      },
      {
        matchers: [
          { key: 'family', pattern: 'javascript', negated: false },
          { key: 'path', pattern: '**/node_modules/**', negated: false },
        ],
        actions: [{ flag: 'app', value: false, range: 'self' }],
      },
      {
        matchers: [{ key: 'module', pattern: 'my app.*', negated: false }],
        actions: [
          { flag: 'app', value: true, range: 'self' },
          { flag: 'group', value: false, range: 'self' },
        ],
      },
      {
        matchers: [
          { key: 'app', pattern: 'yes', negated: true },
          { key: 'path', pattern: '**/vendor/**', negated: false },
        ],
        actions: [
          { flag: 'group', value: false, range: 'down' },
          { flag: 'group', value: true, range: 'up' },
        ],
      },
    ]);
  });

  it('parses caller and callee matchers', () => {
    const [rule] = parseStackTraceRules('[ function:dispatch ] | function:handle* | [function:log] -group');
    expect(rule).toEqual({
      caller: { key: 'function', pattern: 'dispatch', negated: false },
      matchers: [{ key: 'function', pattern: 'handle*', negated: false }],
      callee: { key: 'function', pattern: 'log', negated: false },
      actions: [{ flag: 'group', value: false, range: 'self' }],
    });
  });

  it('parses categories: category= files a frame under one, category: matches it', () => {
    const [filing, matching] = parseStackTraceRules(
      [
        'family:native package:"/System/Library/Frameworks/**" category=system',
        '[ !category:system ] | category:system | [ !category:system ] category=indirection -group',
      ].join('\n'),
    );
    expect(filing).toEqual({
      matchers: [
        { key: 'family', pattern: 'native', negated: false },
        { key: 'package', pattern: '/System/Library/Frameworks/**', negated: false },
      ],
      actions: [],
      category: 'system',
    });
    expect(matching).toEqual({
      caller: { key: 'category', pattern: 'system', negated: true },
      matchers: [{ key: 'category', pattern: 'system', negated: false }],
      callee: { key: 'category', pattern: 'system', negated: true },
      actions: [{ flag: 'group', value: false, range: 'self' }],
      category: 'indirection',
    });
    expect(syntaxError('function:a category=').message).toMatch(/column 21: expected a category name after "category="/);
  });

  it('names the line and column of a missing or unknown action', () => {
    let error = syntaxError('function:a -app\nfunction:b');
    expect(error.message).toBe(
      'stack-trace rules, line 2, column 11: expected an action (+app, -app, +group, -group, each optionally prefixed by ^ or v, or category=<name>), found the end of the line',
    );
    error = syntaxError('function:a +inapp');
    expect([error.line, error.column]).toEqual([1, 12]);
    expect(error.message).toMatch(/found "\+inapp"/);
  });

  it('refuses Sentry variable actions Errata does not apply, naming them', () => {
    expect(syntaxError('function:a max-frames=3').message).toBe(
      'stack-trace rules, line 1, column 12: expected an action Errata supports (+app, -app, +group, -group, each optionally prefixed by ^ or v, or category=<name>); "max-frames=" is not supported, found "max-frames=3"',
    );
  });

  it('refuses a rule without a matcher, an unknown matcher and an unclosed caller', () => {
    expect(syntaxError('-app').message).toMatch(/column 1: expected a frame matcher/);
    expect(syntaxError('lineno:3 -app').message).toMatch(/column 1: expected a known matcher name, not "lineno"/);
    expect(syntaxError('[function:a -app').message).toMatch(/column 13: expected "\]" closing the caller/);
  });
});
