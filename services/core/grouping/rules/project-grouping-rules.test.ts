import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../../pipeline/process-event.ts';
import { md5 } from '../compute-grouping.ts';
import { parseGroupingRules } from './project-grouping-rules.ts';

interface FrameInput {
  function: string;
  filename: string;
  context_line?: string;
  in_app?: boolean;
}

function exceptionEvent(type: string, value: string, frames: FrameInput[], extra: Record<string, unknown> = {}) {
  return {
    platform: 'python',
    exception: { values: [{ type, value, stacktrace: { frames: frames.map((frame) => ({ in_app: true, ...frame })) } }] },
    ...extra,
  };
}

function group(raw: unknown, fingerprintRules = '', stackTraceRules = '') {
  const prepared = prepareEvent(raw, { eventId: 'b'.repeat(32), receivedAt: Date.UTC(2026, 10, 24) / 1000 });
  return groupEvent(prepared, parseGroupingRules({ fingerprintRules, stackTraceRules }));
}

const frames: FrameInput[] = [
  { function: 'run_app', filename: 'app/main.py', context_line: 'serve()' },
  { function: 'handle_request', filename: 'app/router.py', context_line: 'return handler(request)' },
  { function: 'fetch_ball', filename: 'app/dogpark.py', context_line: 'raise FailedToFetch()' },
];

describe('fingerprint rules', () => {
  const rules = ['error.type:DatabaseUnavailable -> system-down', 'error.value:"*timed out*" -> {{ default }}, timeouts'].join(
    '\n',
  );

  it('merge different errors that match a rule into one fingerprint', () => {
    const a = group(exceptionEvent('DatabaseUnavailable', 'primary down', frames), rules);
    const b = group(exceptionEvent('DatabaseUnavailable', 'replica down', frames.slice(1)), rules);
    expect(a.grouping).toEqual({ hashes: [md5(['system-down'])], strategy: 'custom' });
    expect(b.grouping.hashes).toEqual(a.grouping.hashes);
    expect(a.event.fingerprint).toEqual(['system-down']);
  });

  it('leave events no rule matches to default grouping', () => {
    const raw = exceptionEvent('KeyError', 'user', frames);
    expect(group(raw, rules).grouping).toEqual(group(raw).grouping);
  });

  it('apply the first matching rule only, and override the SDK fingerprint', () => {
    const raw = exceptionEvent('DatabaseUnavailable', 'query timed out', frames, { fingerprint: ['from-the-sdk'] });
    expect(group(raw, rules).grouping.hashes).toEqual([md5(['system-down'])]);
    const second = group(raw, rules.split('\n').reverse().join('\n'));
    expect(second.event.fingerprint).toEqual(['{{ default }}', 'timeouts']);
    const values = ['main.py', 'run_app', 'serve()', 'router.py', 'handle_request', 'return handler(request)'];
    expect(second.grouping.hashes[0]).toBe(
      md5([...values, 'dogpark.py', 'fetch_ball', 'raise FailedToFetch()', 'DatabaseUnavailable', 'timeouts']),
    );
  });

  it("take precedence over Sentry's built-in fingerprint rules", () => {
    const raw = { platform: 'javascript', exception: { values: [{ type: 'ChunkLoadError', value: 'Loading chunk 7 failed' }] } };
    expect(group(raw).event.fingerprint).toEqual(['chunkloaderror']);
    expect(group(raw, 'error.type:ChunkLoadError -> our-chunks').event.fingerprint).toEqual(['our-chunks']);
  });

  it('match negated matchers, tags, levels, messages and frames', () => {
    const raw = exceptionEvent('ValueError', 'Bad', frames, { tags: { region: 'us-east' }, level: 'warning' });
    expect(group(raw, 'tags.region:us-* level:WARNING -> regional').event.fingerprint).toEqual(['regional']);
    expect(group(raw, '!tags.region:us-* -> regional').event.fingerprint).toBeUndefined();
    expect(group(raw, 'message:bad stack.function:handle_* -> bad').event.fingerprint).toEqual(['bad']);
    expect(group(raw, 'stack.function:nowhere -> bad').event.fingerprint).toBeUndefined();
    // A tag named like an Object member matches only when the event has that tag.
    expect(group(raw, 'tags.toString:* -> every').event.fingerprint).toBeUndefined();
    const tagged = exceptionEvent('ValueError', 'Bad', frames, { tags: { toString: 'yes' } });
    expect(group(tagged, 'tags.toString:y* -> tagged').event.fingerprint).toEqual(['tagged']);
  });

  it('need one frame, or one exception, to hold every matcher of its kind, and negate per item, as Sentry does', () => {
    const raw = exceptionEvent('ValueError', 'Bad', frames);
    // handle_request is in router.py, not dogpark.py: no one frame is both.
    expect(group(raw, 'stack.function:handle_request path:**/dogpark.py -> mixed').event.fingerprint).toBeUndefined();
    expect(group(raw, 'stack.function:handle_request path:**/router.py -> one').event.fingerprint).toEqual(['one']);
    // Some frame is outside main.py, so the negation holds; no frame is outside app/.
    expect(group(raw, '!path:**/main.py -> elsewhere').event.fingerprint).toEqual(['elsewhere']);
    expect(group(raw, '!path:app/** -> outside').event.fingerprint).toBeUndefined();
    const chained = {
      platform: 'python',
      exception: {
        values: [
          { type: 'TimeoutError', value: 'read' },
          { type: 'ValueError', value: 'request timed out' },
        ],
      },
    };
    expect(group(chained, 'error.type:TimeoutError error.value:"*timed out*" -> mixed').event.fingerprint).toBeUndefined();
    expect(group(chained, 'error.type:ValueError error.value:"*timed out*" -> one').event.fingerprint).toEqual(['one']);
    // No frames at all: a frame matcher, negated or not, holds for none; nor a message matcher
    // without a message or an exception.
    expect(group(chained, '!path:**/vendor/** -> none').event.fingerprint).toBeUndefined();
    const silent = { platform: 'python', stacktrace: { frames: [{ function: 'run', filename: 'app/run.py' }] } };
    expect(group(silent, '!message:foo -> none').event.fingerprint).toBeUndefined();
  });

  it('see the tags Sentry gives every event: level, logger, environment, transaction', () => {
    const raw = (environment: string) =>
      exceptionEvent('ValueError', 'Bad', frames, { environment, fingerprint: ['{{ default }}', '{{ tags.environment }}'] });
    expect(group(raw('prod')).grouping.hashes).not.toEqual(group(raw('staging')).grouping.hashes);
    const checkout = exceptionEvent('ValueError', 'Bad', frames, {
      environment: 'prod',
      transaction: '/checkout',
      logger: 'shop',
    });
    const rule = 'tags.environment:prod tags.transaction:/checkout tags.logger:shop tags.level:error -> checkout-errors';
    expect(group(checkout, rule).event.fingerprint).toEqual(['checkout-errors']);
    // A tag the SDK sent wins.
    const tagged = exceptionEvent('ValueError', 'Bad', frames, { environment: 'prod', tags: { environment: 'canary' } });
    expect(group(tagged, 'tags.environment:canary -> canary').event.fingerprint).toEqual(['canary']);
  });

  it('resolve variables and set the issue title', () => {
    const result = group(
      exceptionEvent('ValueError', 'Bad', frames),
      'type:ValueError -> {{type}} {{ function }} title="Values went bad"',
    );
    expect(result.grouping.hashes).toEqual([md5(['ValueError', 'fetch_ball'])]);
    expect(result.summary.title).toBe('Values went bad');
  });

  it('fill the variables of a title, as Sentry expands its title template', () => {
    const raw = { ...exceptionEvent('ValueError', 'Bad', frames), logger: 'my.package.orders' };
    const result = group(
      raw,
      'logger:my.package.* -> error-logger, {{ logger }} title="Error from Logger {{ logger }} in {{function}}"',
    );
    expect(result.summary.title).toBe('Error from Logger my.package.orders in fetch_ball');
    // What is not a variable stays as written.
    expect(group(raw, 'logger:my.* -> x title="{{ nope }} and {braces}"').summary.title).toBe('{{ nope }} and {braces}');
  });
});

describe('the crash frame of fingerprint variables and metadata, as Sentry finds it', () => {
  it('is the newest in-app frame even without a function, for the variables; metadata skips it', () => {
    const raw = {
      platform: 'javascript',
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'x',
            stacktrace: {
              frames: [
                { function: 'handleClick', abs_path: 'https://x/app.js', in_app: true },
                { abs_path: 'https://x/app.js', lineno: 9, in_app: true },
              ],
            },
          },
        ],
      },
      fingerprint: ['{{ function }}'],
    };
    const result = group(raw);
    expect(result.grouping.hashes).toEqual([md5(['<no-function>'])]);
    expect(result.summary.metadata).toMatchObject({ function: 'handleClick' });
  });

  it("falls back to the event's own stack trace when the exception has none", () => {
    const raw = {
      platform: 'python',
      exception: { values: [{ type: 'ValueError', value: 'x' }] },
      stacktrace: { frames: [{ function: 'fetch_ball', filename: 'app/dogpark.py', in_app: true }] },
      fingerprint: ['{{ function }}', '{{ stack.filename }}'],
    };
    const result = group(raw);
    expect(result.grouping.hashes).toEqual([md5(['fetch_ball', 'app/dogpark.py'])]);
    expect(result.summary.metadata).toMatchObject({ function: 'fetch_ball', filename: 'app/dogpark.py' });
  });
});

describe('stack-trace rules', () => {
  it('-app takes a frame out of the app variant and so changes the grouping', () => {
    const before = group(exceptionEvent('KeyError', 'x', frames));
    const after = group(exceptionEvent('KeyError', 'x', frames), '', 'stack.function:run_app -app');
    expect(after.grouping.hashes[0]).not.toBe(before.grouping.hashes[0]);
    expect(after.grouping.hashes[0]).toBe(group(exceptionEvent('KeyError', 'x', frames.slice(1))).grouping.hashes[0]);
    expect(after.event.exception!.values[0]!.stacktrace!.frames[0]!.in_app).toBe(false);
  });

  it('combine app and group flags as in Sentry (+app -group keeps a frame ours but out of the hash)', () => {
    const result = group(
      exceptionEvent('KeyError', 'x', frames),
      '',
      ['function:run_app -app -group', 'function:handle_request -app +group', 'path:**/dogpark.py +app +group'].join('\n'),
    );
    const app = ['dogpark.py', 'fetch_ball', 'raise FailedToFetch()', 'KeyError'];
    const system = ['router.py', 'handle_request', 'return handler(request)', ...app];
    expect(result.grouping.hashes).toEqual([md5(app), md5(system)]);
  });

  it('^ applies to the frames towards the crash and v to those away from it', () => {
    const up = group(exceptionEvent('KeyError', 'x', frames), '', 'function:run_app ^-group');
    expect(up.grouping.hashes[0]).toBe(md5(['main.py', 'run_app', 'serve()', 'KeyError']));
    const down = group(exceptionEvent('KeyError', 'x', frames), '', 'function:fetch_ball v-group');
    expect(down.grouping.hashes[0]).toBe(md5(['dogpark.py', 'fetch_ball', 'raise FailedToFetch()', 'KeyError']));
  });

  it('match callers, callees, exception types and platform families', () => {
    const caller = group(exceptionEvent('KeyError', 'x', frames), '', '[ function:run_app ] | function:handle_request -group');
    expect(caller.grouping.hashes[0]).toBe(
      md5(['main.py', 'run_app', 'serve()', 'dogpark.py', 'fetch_ball', 'raise FailedToFetch()', 'KeyError']),
    );
    const notCaller = group(
      exceptionEvent('KeyError', 'x', frames),
      '',
      '[ function:fetch_ball ] | function:handle_request -group',
    );
    expect(notCaller.grouping.hashes[0]).toBe(group(exceptionEvent('KeyError', 'x', frames)).grouping.hashes[0]);
    const typed = group(exceptionEvent('KeyError', 'x', frames), '', 'error.type:ValueError function:run_app -group');
    expect(typed.grouping.hashes[0]).toBe(group(exceptionEvent('KeyError', 'x', frames)).grouping.hashes[0]);
    const family = group(exceptionEvent('KeyError', 'x', frames), '', 'family:javascript,native function:run_app -group');
    expect(family.grouping.hashes[0]).toBe(group(exceptionEvent('KeyError', 'x', frames)).grouping.hashes[0]);
  });

  it('file frames under categories that decide grouping, whatever the order of the rules', () => {
    // As in Sentry, categories and in_app are settled first; +group/-group then see them, so a
    // -group rule for a category may come before the rule that files frames under it.
    const result = group(
      exceptionEvent('KeyError', 'x', frames),
      '',
      ['category:plumbing -group', 'function:handle_request category=plumbing', 'category:plumbing function:handle_* -app'].join(
        '\n',
      ),
    );
    const app = ['main.py', 'run_app', 'serve()', 'dogpark.py', 'fetch_ball', 'raise FailedToFetch()', 'KeyError'];
    expect(result.grouping.hashes).toEqual([md5(app)]);
    expect(result.event.exception!.values[0]!.stacktrace!.frames[1]).toMatchObject({
      in_app: false,
      data: { category: 'plumbing', ignored_for_grouping: true },
    });
  });

  it('match names whatever their case, as Sentry compiles stack-trace rule patterns', () => {
    const result = group(
      exceptionEvent('KeyError', 'x', frames),
      '',
      'function:RUN_APP -group\nerror.type:keyerror function:Fetch_* -group',
    );
    expect(result.grouping.hashes[0]).toBe(md5(['router.py', 'handle_request', 'return handler(request)', 'KeyError']));
    // Fingerprint rules keep names exact, as Sentry's fingerprinting does.
    expect(group(exceptionEvent('KeyError', 'x', frames), 'error.type:keyerror -> keys').event.fingerprint).toBeUndefined();
  });

  it('run before fingerprint rules, so app: sees their decisions', () => {
    const result = group(
      exceptionEvent('KeyError', 'x', frames),
      'stack.app:no stack.function:run_app -> outside',
      'function:run_app -app',
    );
    expect(result.event.fingerprint).toEqual(['outside']);
  });
});
