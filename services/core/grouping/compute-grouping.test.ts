import { describe, expect, it } from 'vitest';
import { capturedItems } from '../../../test/fixtures/sdk-fixtures.ts';
import type { NormalizedEvent } from '../event/event.ts';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { computeGrouping, md5 } from './compute-grouping.ts';
import { summarizeEvent } from './event-summary.ts';

function prepare(raw: unknown): NormalizedEvent {
  return groupEvent(prepareEvent(raw, { eventId: 'a'.repeat(32), receivedAt: Date.UTC(2026, 10, 21, 22) / 1000 })).event;
}
const fixture = (name: string) => prepare(capturedItems('event').find((e) => e.request === name)!.payload);
const group = (raw: unknown) => computeGrouping(prepare(raw));
const summary = (name: string) => summarizeEvent(fixture(name));

describe('titles and culprits of real SDK events, as Sentry shows them', () => {
  it.each([
    ['node-exception-002', 'TypeError: Order 1001 has no items', 'parseOrder(app)'],
    ['node-message-002', 'hello world from node', ''],
    ['browser-exception-001', 'TypeError: Order 1001 has no items', 'parseOrder(app)'],
    ['python-gzip-exception-001', "KeyError: 'Order 1001 has no items'", '__main__ in parse_order'],
    ['python-gzip-message-001', 'hello world from python', ''],
    ['python-gzip-logging-002', 'Plain logging error for order 1002', ''],
    ['go-exception-plain-001', '*errors.errorString: plain errors.New failure', 'main in main'],
    ['go-panic-001', 'runtime.boundsError: runtime error: index out of range [3] with length 0', 'main in explode'],
    ['go-message-001', 'hello world from go', ''],
    ['cli-send-event-001', 'cli event', ''],
  ])('%s', (name, title, culprit) => {
    expect(summary(name)).toMatchObject({ title, culprit });
  });

  it('records the crash frame in the metadata', () => {
    expect(summary('node-exception-002').metadata).toEqual({
      type: 'TypeError',
      value: 'Order 1001 has no items',
      filename: expect.stringContaining('app.cjs'),
      function: 'parseOrder',
    });
  });
});

describe('grouping real SDK events', () => {
  const hashOf = (name: string) => computeGrouping(fixture(name)).hashes[0];

  it('groups the same error from separate runs together', () => {
    expect(hashOf('python-gzip-exception-001')).toBe(hashOf('python-br-exception-001'));
    expect(hashOf('node-exception-002')).toBe(hashOf('node-large-extra-002'));
    expect(hashOf('browser-exception-001')).toBe(hashOf('browser-preflight-004'));
  });

  it('groups different errors apart', () => {
    const hashes = [
      'node-exception-002',
      'node-exception-cause-002',
      'python-gzip-exception-001',
      'python-gzip-exception-chained-001',
      'go-exception-001',
      'go-panic-001',
    ].map(hashOf);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('groups a Python logging error with its exception as one issue', () => {
    expect(hashOf('python-gzip-logging-001')).toBe(hashOf('python-gzip-exception-001'));
  });

  it('gives an in-app and a system hash when some frames are not in-app', () => {
    expect(computeGrouping(fixture('node-exception-002'))).toMatchObject({
      strategy: 'exception',
      hashes: [expect.any(String), expect.any(String)],
    });
  });
});

describe('grouping rules', () => {
  const frames = (...names: string[]) =>
    names.map((name) => ({ function: name, module: `app.${name}`, in_app: true, context_line: `  call_${name}()` }));

  it('hashes an exception with a stack trace on its frames and type, not its message', () => {
    const a = group({
      platform: 'python',
      exception: [{ type: 'ValueError', value: 'id 1', stacktrace: { frames: frames('a', 'b') } }],
    });
    const b = group({
      platform: 'python',
      exception: [{ type: 'ValueError', value: 'completely different', stacktrace: { frames: frames('a', 'b') } }],
    });
    expect(a.hashes).toEqual(b.hashes);
    expect(a.hashes[0]).toBe(md5(['app.a', 'a', 'call_a()', 'app.b', 'b', 'call_b()', 'ValueError']));
  });

  it('falls back to the type and normalized value without a stack trace (Sentry vector)', () => {
    expect(group({ exception: [{ type: 'ValueError', value: 'Invalid id 12345' }] }).hashes).toEqual([
      '25e32c755d43fa839f0a69363b631e0b',
    ]);
    expect(group({ exception: [{ type: 'ValueError', value: 'Invalid id 999' }] }).hashes).toEqual([
      '25e32c755d43fa839f0a69363b631e0b',
    ]);
  });

  it('matches Sentry for a Python trace with one system frame (worked vector)', () => {
    const event = {
      platform: 'python',
      exception: [
        {
          type: 'ValueError',
          value: 'bad',
          stacktrace: {
            frames: [
              {
                module: 'django.core.handlers.base',
                function: '_get_response',
                context_line: 'response = wrapped_callback(request)',
                in_app: false,
              },
              { module: 'app.views', function: 'index', context_line: 'raise ValueError("bad")', in_app: true },
            ],
          },
        },
      ],
    };
    expect(group(event).hashes).toEqual(['35d0c5d52ce39ded15e05216018e0a5e', '028045edc6e9140511bb603d999b7543']);
  });

  it('groups messages by their normalized text', () => {
    expect(group({ message: 'User 42 logged in from 10.0.0.1' }).hashes).toEqual(['0a0735a01d18cb6ccd90ba437e1656a9']);
    expect(group({ message: 'User 7 logged in from 10.0.0.2' }).hashes).toEqual(['0a0735a01d18cb6ccd90ba437e1656a9']);
    expect(group({ logentry: { message: 'User %s failed', formatted: 'User bob failed', params: ['bob'] } }).hashes).toEqual(
      group({ logentry: { message: 'User %s failed', formatted: 'User amy failed', params: ['amy'] } }).hashes,
    );
  });

  it('uses only in-app frames for the app hash, and node_modules is never in-app', () => {
    const withLibrary = (library: string) =>
      group({
        platform: 'node',
        exception: [
          {
            type: 'Error',
            stacktrace: {
              frames: [
                { abs_path: `/srv/node_modules/lib/index.js`, filename: 'index.js', function: library, in_app: true },
                { abs_path: '/srv/app.js', filename: 'app.js', function: 'main', in_app: true },
              ],
            },
          },
        ],
      });
    expect(withLibrary('one').hashes[0]).toBe(withLibrary('two').hashes[0]);
    expect(withLibrary('one').hashes[1]).not.toBe(withLibrary('two').hashes[1]);
  });

  it('ignores anonymous JavaScript functions and recursion, and groups URL frames by their generated module', () => {
    const trace = (fns: string[]) =>
      group({
        platform: 'javascript',
        exception: [
          {
            type: 'Error',
            stacktrace: {
              frames: fns.map((fn) => ({ filename: 'https://cdn.x/app.js', function: fn, in_app: true, lineno: 1 })),
            },
          },
        ],
      });
    expect(trace(['Foo.bar', '<anonymous>']).hashes).toEqual(trace(['Baz.bar', '?']).hashes);
    expect(trace(['Foo.bar']).hashes[0]).toBe(md5(['app', 'bar', 'Error']));
    expect(trace(['a', 'a', 'a']).hashes).toEqual(trace(['a']).hashes);
  });

  it('lets a custom fingerprint decide, resolving variables', () => {
    const base = { exception: [{ type: 'DbError', value: 'timeout' }], tags: { region: 'eu' } };
    expect(group({ ...base, fingerprint: ['database-unavailable'] })).toEqual({
      hashes: ['3872d078d8f73903d944f07c83cca6c4'],
      strategy: 'custom',
    });
    expect(group({ ...base, fingerprint: ['{{ type }}', '{{ tags.region }}'] }).hashes).toEqual([md5(['DbError', 'eu'])]);
    expect(group({ ...base, fingerprint: ['{{ tags.zone }}'] }).hashes).toEqual([md5(['<no-value-for-tag-zone>'])]);
    // A tag named like an Object member is a tag like any other, not that member's source text.
    expect(group({ ...base, fingerprint: ['{{ tags.constructor }}'] }).hashes).toEqual([md5(['<no-value-for-tag-constructor>'])]);
  });

  it('salts default grouping with {{ default }} plus other entries', () => {
    const base = { exception: [{ type: 'DbError', value: 'timeout' }], tags: { region: 'eu' } };
    const plain = group(base).hashes[0];
    const salted = group({ ...base, fingerprint: ['{{ default }}', '{{ tags.region }}'] });
    expect(salted.hashes).toEqual([md5(['DbError', 'timeout', 'eu'])]);
    expect(salted.hashes[0]).not.toBe(plain);
    expect(group({ ...base, fingerprint: ['{{default}}'] }).hashes[0]).toBe(plain);
  });

  it('groups an Apple NSError by its domain and code after the type, not by its message', () => {
    const nsError = (value: string, frames?: unknown[]) => ({
      platform: 'cocoa',
      exception: {
        values: [
          {
            type: 'URLError',
            value,
            mechanism: { type: 'NSError', meta: { ns_error: { domain: 'NSURLErrorDomain', code: -1001 } } },
            ...(frames ? { stacktrace: { frames } } : {}),
          },
        ],
      },
    });
    expect(group(nsError('Request 42 timed out')).hashes).toEqual([md5(['URLError', 'NSURLErrorDomain', '-1001'])]);
    expect(group(nsError('Request 42 timed out')).hashes).toEqual(group(nsError('The request timed out.')).hashes);
    const withFrames = group(nsError('x', [{ function: 'fetchFeed', package: 'MyApp', in_app: true }]));
    expect(withFrames.hashes).toEqual([md5(['fetchFeed', 'URLError', 'NSURLErrorDomain', '-1001'])]);
  });

  it('groups events with nothing to group by into one fallback issue', () => {
    expect(group({})).toEqual({ hashes: ['d41d8cd98f00b204e9800998ecf8427e'], strategy: 'fallback' });
  });
});
