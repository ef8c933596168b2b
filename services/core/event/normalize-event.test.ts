import { describe, expect, it } from 'vitest';
import { capturedItems } from '../../../test/fixtures/sdk-fixtures.ts';
import { normalizeEvent, type NormalizeContext } from './normalize-event.ts';

const RECEIVED = Date.UTC(2026, 10, 21, 21, 55) / 1000;
const context: NormalizeContext = { eventId: 'f'.repeat(32), receivedAt: RECEIVED };
const normalize = (raw: unknown, extra: Partial<NormalizeContext> = {}) => normalizeEvent(raw, { ...context, ...extra });

describe('normalizeEvent on real SDK payloads', () => {
  const events = capturedItems('event');

  it('has fixtures from every SDK', () => {
    expect(new Set(events.map((e) => e.sdk))).toEqual(new Set(['browser', 'cli', 'go', 'node', 'python']));
  });

  it.each(events.map((e) => [e.request, e] as const))('%s normalizes without dropping anything', (_name, item) => {
    const event = normalize(item.payload);
    expect(event.errors).toBeUndefined();
    expect(event.event_id).toBe(context.eventId);
    expect(event.timestamp).toBeGreaterThan(RECEIVED - 3600);
    expect(event.timestamp).toBeLessThanOrEqual(RECEIVED + 60);
  });

  it('reads Go: exception and breadcrumbs as bare arrays, RFC 3339 timestamps with nanoseconds', () => {
    const go = capturedItems('event', 'go').find((e) => e.request === 'go-exception-001')!;
    const raw = go.payload as { exception: unknown[]; breadcrumbs: unknown[]; timestamp: string };
    expect(Array.isArray(raw.exception)).toBe(true);
    expect(raw.timestamp).toMatch(/\.\d{7,9}/);
    const event = normalize(raw);
    expect(event.exception!.values.length).toBe(raw.exception.length);
    expect(event.breadcrumbs!.values.length).toBe(raw.breadcrumbs.length);
    expect(event.timestamp).toBeCloseTo(Date.parse(raw.timestamp) / 1000, 0);
  });

  it("drops a breadcrumb's time that the clock's correction takes past what a Date holds", () => {
    // sent_at in 1970 makes a drift of about +1.8e9 s; the crumb's time was the last a Date holds.
    const event = normalizeEvent(
      {
        breadcrumbs: [
          { timestamp: 8_639_999_999_999, message: 'far' },
          { timestamp: 1000, message: 'near' },
        ],
      },
      { ...context, sentAt: '1970-01-01T00:00:00Z' },
    );
    const [far, near] = event.breadcrumbs!.values;
    expect(far!.timestamp).toBeUndefined();
    expect(near!.timestamp).toBe(1000 + RECEIVED);
  });

  it('reads Python: ISO timestamps, {values} breadcrumbs, logentry with a template', () => {
    const [logging] = capturedItems('event', 'python').filter((e) => e.request === 'python-gzip-logging-002');
    const event = normalize(logging!.payload);
    expect(event.logentry?.formatted).toBe('Plain logging error for order 1002');
    expect(event.breadcrumbs!.values.length).toBeGreaterThan(0);
    expect(event.user).toMatchObject({ id: 'user-42', email: 'jane@example.com' });
    expect(event.release).toBe('errata-fixtures@1.2.3');
    expect(event.environment).toBe('fixture');
  });

  it('keeps the browser SDK frames with URL paths as filenames and full URLs as abs_path', () => {
    const [browser] = capturedItems('event', 'browser').filter((e) => e.request === 'browser-exception-001');
    const frames = normalize(browser!.payload).exception!.values[0]!.stacktrace!.frames;
    const app = frames.find((f) => f.abs_path?.endsWith('/app.js'))!;
    expect(app.abs_path).toBe('http://127.0.0.1:9312/app.js');
    expect(app.filename).toBe('/app.js');
  });

  it('keeps the trace context, so logs can be correlated', () => {
    const [node] = capturedItems('event', 'node').filter((e) => e.request === 'node-exception-002');
    expect(normalize(node!.payload).contexts.trace?.trace_id).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe('normalizeEvent variants', () => {
  it.each([
    ['RFC 3339 with zone', '2026-11-21T21:50:00Z', Date.UTC(2026, 10, 21, 21, 50) / 1000],
    ['RFC 3339 without zone (UTC)', '2026-11-21T21:50:00', Date.UTC(2026, 10, 21, 21, 50) / 1000],
    ['with an offset', '2026-11-21T22:50:00+01:00', Date.UTC(2026, 10, 21, 21, 50) / 1000],
    ['float seconds', RECEIVED - 10.5, RECEIVED - 10.5],
    ['integer seconds as text', String(RECEIVED - 10), RECEIVED - 10],
    ['nanoseconds', '2026-11-21T21:50:00.123456789Z', Date.UTC(2026, 10, 21, 21, 50) / 1000 + 0.123456789],
  ])('reads timestamps: %s', (_name, timestamp, expected) => {
    expect(normalize({ timestamp }).timestamp).toBeCloseTo(expected, 5);
  });

  it('replaces implausible timestamps with the receive time and notes why', () => {
    const future = normalize({ timestamp: RECEIVED + 3600 });
    expect(future.timestamp).toBe(RECEIVED);
    expect(future.errors).toEqual([{ type: 'future_timestamp', name: 'timestamp', value: RECEIVED + 3600 }]);
    expect(normalize({ timestamp: 1 }).errors?.[0]?.type).toBe('past_timestamp');
    expect(normalize({ timestamp: 'yesterday' }).errors?.[0]).toMatchObject({ type: 'invalid_data', name: 'timestamp' });
  });

  it.each([
    ['a plain string message', { message: 'hello' }, { formatted: 'hello' }],
    [
      'a message object with params',
      { message: { message: 'hi %s', params: ['bob'] } },
      { formatted: 'hi bob', message: 'hi %s', params: ['bob'] },
    ],
    ['a message object with formatted', { message: { formatted: 'done' } }, { formatted: 'done' }],
    [
      'logentry with dict params',
      { logentry: { message: 'user {name}', params: { name: 'ann' } } },
      { formatted: 'user ann', message: 'user {name}', params: { name: 'ann' } },
    ],
    [
      'logentry with printf-style dict params',
      { logentry: { message: '%(n)s items', params: { n: 3 } } },
      { formatted: '3 items', message: '%(n)s items', params: { n: 3 } },
    ],
    ['logentry where message equals formatted', { logentry: { message: 'same', formatted: 'same' } }, { formatted: 'same' }],
    ['a number', { message: 42 }, { formatted: '42' }],
    [
      'dict params, placeholders named like Object members left as written',
      { logentry: { message: '{name} {constructor} %(toString)s', params: { name: 'ann' } } },
      { formatted: 'ann {constructor} %(toString)s', message: '{name} {constructor} %(toString)s', params: { name: 'ann' } },
    ],
  ])('merges every message form into logentry: %s', (_name, raw, expected) => {
    expect(normalize(raw).logentry).toEqual(expected);
  });

  it('formats a template naming a large param thousands of times without building the whole text', () => {
    const large = Array.from({ length: 100 }, () => 'x'.repeat(1000));
    // Written out whole, 6,000 copies of a 100 KB param would pass V8's longest string.
    const entry = normalize({ logentry: { message: '{a} '.repeat(6000), params: { a: large } } }).logentry!;
    expect(entry.formatted).toHaveLength(8192);
    expect(entry.formatted).toBe(JSON.stringify(large).slice(0, 8192));
    // Every placeholder that starts within the stored length is filled, however long the template.
    const long = normalize({ logentry: { message: `%s %s ${'y'.repeat(7200)}`, params: ['a'.repeat(1024), 'b'] } });
    expect(long.logentry!.formatted).toBe(`${'a'.repeat(1024)} b ${'y'.repeat(7200)}`.slice(0, 8192));
    // A template with nothing to fill is kept once, as formatted.
    const plain = normalize({ logentry: { message: 'z'.repeat(9000), params: ['unused'] } }).logentry!;
    expect(plain).toEqual({ formatted: 'z'.repeat(8192), params: ['unused'] });
    expect(entry.message).toHaveLength(8192);
  });

  it.each([
    ['warning', 'warning'],
    ['warn', 'warning'],
    ['log', 'info'],
    ['critical', 'fatal'],
    ['FATAL', 'fatal'],
    [40, 'error'],
    ['10', 'debug'],
  ])('maps level %s to %s', (level, expected) => {
    expect(normalize({ level }).level).toBe(expected);
  });

  it('cuts a long message and context line before an emoji the limit would split, rather than storing half of it', () => {
    const long = (units: number) => `${'a'.repeat(units - 1)}😀 and more`;
    const event = normalize({
      message: long(8192),
      exception: {
        values: [{ type: 'E', value: 'v', stacktrace: { frames: [{ filename: 'a.js', context_line: long(1024) }] } }],
      },
    });
    expect(event.logentry?.formatted).toMatch(/^a+$/);
    expect(event.exception?.values[0]?.stacktrace?.frames[0]?.context_line).toMatch(/^a+$/);
  });

  it('defaults the level to error and notes an unknown one', () => {
    const event = normalize({ level: 'loud' });
    expect(event.level).toBe('error');
    expect(event.errors).toEqual([{ type: 'invalid_data', name: 'level', value: 'loud' }]);
  });

  it('accepts exception as {values}, a bare array, or a single object, oldest first', () => {
    const one = { type: 'A', value: 'first' };
    const two = { type: 'B', value: 'second' };
    expect(normalize({ exception: { values: [one, two] } }).exception!.values.map((e) => e.type)).toEqual(['A', 'B']);
    expect(normalize({ exception: [one, two] }).exception!.values.map((e) => e.type)).toEqual(['A', 'B']);
    expect(normalize({ exception: one }).exception!.values.map((e) => e.type)).toEqual(['A']);
    expect(normalize({ exception: {} }).exception).toBeUndefined();
    expect(normalize({ exception: { values: [one] } }).type).toBe('error');
  });

  it('splits "Type: value" when only the value was sent', () => {
    expect(normalize({ exception: { values: [{ value: 'ValueError: bad input' }] } }).exception!.values[0]).toEqual({
      type: 'ValueError',
      value: 'bad input',
    });
  });

  it('applies Relay frame path rules', () => {
    const event = normalize({
      exception: {
        values: [
          {
            type: 'E',
            stacktrace: {
              frames: [
                { filename: 'https://x.com/static/app.js', function: 'a', lineno: '12', colno: 3 },
                { filename: 'src/app.py', abs_path: '/srv/src/app.py', function: 'b' },
                { abs_path: 'https://x.com/' },
                'not a frame',
              ],
            },
          },
        ],
      },
    });
    const frames = event.exception!.values[0]!.stacktrace!.frames;
    expect(frames[0]).toEqual({
      abs_path: 'https://x.com/static/app.js',
      filename: '/static/app.js',
      function: 'a',
      lineno: 12,
      colno: 3,
    });
    expect(frames[1]).toMatchObject({ filename: 'src/app.py', abs_path: '/srv/src/app.py' });
    expect(frames[2]).toEqual({ abs_path: 'https://x.com/', filename: 'https://x.com/' });
    expect(frames).toHaveLength(3);
    expect(event.errors).toEqual([{ type: 'invalid_data', name: 'stacktrace.frames' }]);
  });

  it('keeps both ends of an overlong stack trace', () => {
    const frames = Array.from({ length: 400 }, (_, i) => ({ function: `f${i}` }));
    const stacktrace = normalize({ exception: [{ type: 'E', stacktrace: { frames } }] }).exception!.values[0]!.stacktrace!;
    expect(stacktrace.frames).toHaveLength(250);
    expect(stacktrace.frames[0]!.function).toBe('f0');
    expect(stacktrace.frames[249]!.function).toBe('f399');
    expect(stacktrace.frames_omitted).toEqual([125, 275]);
  });

  it('reads only the frames it keeps of an overlong stack trace, counting non-frames as none', () => {
    let middleReads = 0;
    const middle = () => ({
      get function() {
        middleReads += 1;
        return 'middle';
      },
    });
    const frames = [
      ...Array.from({ length: 125 }, (_, i) => ({ function: `head${i}` })),
      'not a frame',
      ...Array.from({ length: 100_000 }, middle),
      7,
      ...Array.from({ length: 125 }, (_, i) => ({ function: `tail${i}` })),
    ];
    const stacktrace = normalize({ exception: [{ type: 'E', stacktrace: { frames } }] }).exception!.values[0]!.stacktrace!;
    expect(middleReads).toBe(0);
    expect(stacktrace.frames.map((f) => f.function)).toEqual([
      ...Array.from({ length: 125 }, (_, i) => `head${i}`),
      ...Array.from({ length: 125 }, (_, i) => `tail${i}`),
    ]);
    expect(stacktrace.frames_omitted).toEqual([125, 100_125]);
  });

  it('keeps a trace whole when its non-frames are all that exceed the limit', () => {
    const frames = [
      ...Array.from({ length: 250 }, (_, i) => ({ function: `f${i}` })),
      ...Array.from({ length: 300 }, () => null),
    ];
    const stacktrace = normalize({ exception: [{ type: 'E', stacktrace: { frames } }] }).exception!.values[0]!.stacktrace!;
    expect(stacktrace.frames).toHaveLength(250);
    expect(stacktrace.frames_omitted).toBeUndefined();
  });

  it('accepts breadcrumbs as {values} or an array, in the order sent', () => {
    const crumbs = [
      { message: 'b', timestamp: '2026-11-21T21:50:00Z', level: 'warn', category: 'ui' },
      { message: 'a', timestamp: 1_800_000_000 },
    ];
    for (const breadcrumbs of [crumbs, { values: crumbs }]) {
      expect(normalize({ breadcrumbs }).breadcrumbs!.values).toEqual([
        { type: 'default', level: 'warning', timestamp: Date.UTC(2026, 10, 21, 21, 50) / 1000, category: 'ui', message: 'b' },
        { type: 'default', level: 'info', timestamp: 1_800_000_000, message: 'a' },
      ]);
    }
  });

  it('accepts tags as an object or as pairs, normalized as Relay does', () => {
    const expected = { env: 'prod', 'my-tag': 'x', count: '3', ok: 'True', empty: '' };
    expect(normalize({ tags: { env: 'prod', 'my tag': 'x', count: 3, ok: true, empty: null } }).tags).toEqual(expected);
    expect(
      normalize({
        tags: [
          ['env', 'prod'],
          ['my tag', 'x'],
          ['count', 3],
          ['ok', true],
          ['empty', null],
        ],
      }).tags,
    ).toEqual(expected);
    const bad = normalize({ tags: { 'a/b': 'x', long: 'y'.repeat(201), multi: 'a\nb', fine: 'ok' } });
    expect(bad.tags).toEqual({ fine: 'ok' });
    expect(bad.errors).toHaveLength(3);
  });

  it('reads an object of 200,000 tags (short ones fill a 1 MiB event that way) without overflowing the stack', () => {
    const many = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`t${i}`, '']));
    expect(Object.keys(normalize({ tags: { ...many, last: 'x' } }).tags)).toContain('last');
  });

  it("keeps threads' stack traces to 5,000 frames in all, the crashed thread's first", () => {
    const frames = Array.from({ length: 250 }, (_, i) => ({ function: `f${i}` }));
    const threads = Array.from({ length: 100 }, (_, i) => ({ id: i, crashed: i === 70, stacktrace: { frames } }));
    const event = normalize({ threads: { values: threads } });
    const kept = (event.threads!.values as Array<{ id: string; stacktrace?: { frames: unknown[] } }>).filter((t) => t.stacktrace);
    expect(kept.map((t) => t.id)).toEqual([...Array.from({ length: 19 }, (_, i) => String(i)), '70']);
    expect(kept.flatMap((t) => t.stacktrace!.frames)).toHaveLength(5000);
    expect(event.threads!.values).toHaveLength(100);
    expect(event.errors).toContainEqual({
      type: 'value_too_long',
      name: 'threads',
      value: '80 stack traces left out: over 5000 frames in all',
    });
  });

  it('fills a user ip of {{auto}} from the client address', () => {
    expect(normalize({ user: { ip_address: '{{auto}}', id: 7 } }, { clientIp: '203.0.113.9' }).user).toEqual({
      id: '7',
      ip_address: '203.0.113.9',
    });
  });

  it('fills the client address as Relay does for sdk.settings.infer_ip: auto when none was sent, never not even {{auto}}', () => {
    const clientIp = '203.0.113.9';
    const auto = { name: 'sentry.javascript.browser', settings: { infer_ip: 'auto' } };
    expect(normalize({ sdk: auto }, { clientIp }).user).toEqual({ ip_address: clientIp });
    expect(normalize({ sdk: auto, user: { id: 7 } }, { clientIp }).user).toEqual({ id: '7', ip_address: clientIp });
    expect(normalize({ sdk: auto, user: { ip_address: '198.51.100.1' } }, { clientIp }).user).toEqual({
      ip_address: '198.51.100.1',
    });
    const never = { name: 'sentry.javascript.browser', settings: { infer_ip: 'never' } };
    expect(normalize({ sdk: never, user: { id: 7, ip_address: '{{auto}}' } }, { clientIp }).user).toEqual({ id: '7' });
    // What a proxy's header said is kept only when it is an address.
    expect(normalize({ sdk: auto }, { clientIp: '203.0.113.9:51234' }).user).toBeUndefined();
    expect(normalize({ user: { ip_address: '{{auto}}' } }, { clientIp: 'forged' }).user).toBeUndefined();
    // Without the setting, an address is filled only when asked for.
    expect(normalize({ user: { id: 7 } }, { clientIp }).user).toEqual({ id: '7' });
  });

  it('writes an exception value sent as an object or an array as JSON, as Relay does', () => {
    const event = normalize({
      exception: {
        values: [
          { type: 'ApiError', value: { code: 404 } },
          { type: 'E', value: [1, 'a'] },
        ],
      },
    });
    expect(event.exception?.values.map((e) => e.value)).toEqual(['{"code":404}', '[1,"a"]']);
  });

  it('writes fingerprint numbers and booleans as Relay does, and drops a fingerprint with a number past 2^53', () => {
    expect(normalize({ fingerprint: ['price', 19.99, -22, 3.0, true, false] }).fingerprint).toEqual([
      'price',
      '19',
      '-22',
      '3',
      'True',
      'False',
    ]);
    expect(normalize({ fingerprint: ['price', 19.5] }).fingerprint).toEqual(['price', '19']);
    expect(normalize({ fingerprint: ['big', 1e300] }).fingerprint).toBeUndefined();
  });

  it('drops invalid release, environment and dist values, keeping the rest', () => {
    const event = normalize({ release: 'a/b', environment: 'x'.repeat(65), dist: 'bad dist', message: 'kept' });
    expect(event.release).toBeUndefined();
    expect(event.environment).toBeUndefined();
    expect(event.dist).toBeUndefined();
    expect(event.logentry?.formatted).toBe('kept');
    expect(event.errors?.map((e) => e.name).sort()).toEqual(['dist', 'environment', 'release']);
    expect(normalize({ release: 1.2 }).release).toBe('1.2');
  });

  it('bounds deeply nested extra data instead of failing', () => {
    let nested: unknown = 'bottom';
    for (let i = 0; i < 5000; i++) nested = { next: nested };
    const event = normalize({ extra: { nested }, message: 'deep' });
    let depth = 0;
    let cursor = event.extra!.nested as Record<string, unknown> | string;
    while (typeof cursor === 'object') {
      cursor = cursor.next as Record<string, unknown>;
      depth += 1;
    }
    expect(depth).toBeLessThan(10);
    expect(cursor).toBe('[truncated: nested too deeply]');
  });

  it('never stores nesting past the depth larger than it came: empty kept, a hundred markers, then null', () => {
    // extra is copied 7 levels deep: extra, a, then five arrays; what the sixth array holds is past it.
    const fan = (levels: number, leaf: () => unknown): unknown =>
      levels === 0 ? leaf() : Array.from({ length: 10 }, () => fan(levels - 1, leaf));
    const leaves = (extra: unknown) => JSON.stringify(extra).match(/\[truncated: nested too deeply\]|\[\]|null/g) ?? [];

    const empty = normalize({ extra: { a: fan(5, () => [[], {}]) } }).extra!;
    expect(new Set(leaves(empty))).toEqual(new Set(['[]']));

    const input = { extra: { a: fan(5, () => [[0], { k: 1 }]) } };
    const full = normalize(input).extra!;
    const kinds = leaves(full);
    expect(kinds.filter((leaf) => leaf.startsWith('[truncated'))).toHaveLength(100);
    expect(kinds.filter((leaf) => leaf === 'null')).toHaveLength(200_000 - 100);
    expect(JSON.stringify(full).length).toBeLessThan(JSON.stringify(input).length);
  });

  it('writes at most 100 depth markers per event, however many fields it copies', () => {
    // Unknown fields are copied 5 levels deep, each one apart: [[[[[0]]]]] is past it.
    const deep = () => [[[[[[0]]]]], [[[[[0]]]]]];
    const raw: Record<string, unknown> = { message: 'many' };
    for (let i = 0; i < 500; i++) raw[`field${i}`] = deep();
    const markers = JSON.stringify(normalize(raw)).match(/\[truncated: nested too deeply\]/g) ?? [];
    expect(markers).toHaveLength(100);
    // The budget is the event's: the next event has its own.
    expect(JSON.stringify(normalize({ field: deep() })).match(/\[truncated: nested too deeply\]/g)).toHaveLength(2);
  });

  it('turns a payload that is not an object into an empty event that still says what happened', () => {
    const event = normalize(['not', 'an', 'event']);
    expect(event.type).toBe('default');
    expect(event.errors).toEqual([{ type: 'invalid_data', name: 'event', value: 'array' }]);
  });

  it('keeps fields it does not model, bounded', () => {
    expect(normalize({ custom_field: { a: 1 } }).custom_field).toEqual({ a: 1 });
  });
});

describe('keys named __proto__ in a payload', () => {
  // JSON.parse makes "__proto__" an ordinary key; only assignment would take it as the prototype.
  const parsed = (json: string) => JSON.parse(json) as unknown;

  it('at the top level are kept as data, and the event inherits nothing from them', () => {
    const event = normalize(parsed('{"message":"hi","__proto__":{"exception":{"values":"x"},"fingerprint":["boom"]}}'));
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(event.exception).toBeUndefined();
    expect(event.fingerprint).toBeUndefined();
    expect(Object.getOwnPropertyDescriptor(event, '__proto__')?.value).toEqual({
      exception: { values: 'x' },
      fingerprint: ['boom'],
    });
  });

  it('in extra, contexts, tags and modules are kept as data', () => {
    const event = normalize(
      parsed(
        '{"message":"hi","extra":{"__proto__":{"a":1}},"contexts":{"__proto__":{"trace":{"trace_id":"x"}}},' +
          '"tags":{"__proto__":"v"},"modules":{"__proto__":"1.0"}}',
      ),
    );
    const own = (value: object) => [
      Object.getPrototypeOf(value) === Object.prototype,
      Object.getOwnPropertyDescriptor(value, '__proto__')?.value,
    ];
    expect(own(event.extra!)).toEqual([true, { a: 1 }]);
    expect(own(event.contexts!)).toEqual([true, { trace: { trace_id: 'x' }, type: '__proto__' }]);
    expect(event.contexts!.trace).toBeUndefined();
    expect(own(event.tags!)).toEqual([true, 'v']);
    expect(own(event.modules!)).toEqual([true, '1.0']);
  });

  it('as a level, like "constructor", are unknown levels, not Object.prototype members', () => {
    const unknown = normalize({ message: 'hi', level: 'bogus', breadcrumbs: [{ message: 'b', level: 'bogus' }] });
    for (const level of ['constructor', '__proto__', 'toString']) {
      const event = normalize({ message: 'hi', level, breadcrumbs: [{ message: 'b', level }] });
      expect([event.level, event.breadcrumbs?.values[0]?.level]).toEqual([unknown.level, unknown.breadcrumbs?.values[0]?.level]);
    }
  });
});
