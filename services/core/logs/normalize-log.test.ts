import { describe, expect, it } from 'vitest';
import { logAttributes } from './log-attributes.ts';
import { normalizeLogContainer } from './normalize-log.ts';

const RECEIVED = Date.UTC(2026, 10, 21, 22) / 1000;
const context = { containerId: 'c1', projectId: 3, receivedAt: RECEIVED };
const one = (item: Record<string, unknown>) => normalizeLogContainer({ items: [item] }, context).records[0];

describe('normalizeLogContainer', () => {
  it('reads the JavaScript form: float timestamp, top-level severity_number, typed attributes', () => {
    const record = one({
      timestamp: RECEIVED - 1.5,
      level: 'warn',
      body: 'cache miss',
      trace_id: 'A'.repeat(32),
      span_id: 'b'.repeat(16),
      severity_number: 13,
      attributes: {
        'sentry.release': { value: '1.2.3', type: 'string' },
        'sentry.environment': { value: 'prod', type: 'string' },
        hits: { value: 3, type: 'integer' },
        ratio: { value: 0.5, type: 'double' },
        cached: { value: false, type: 'boolean' },
      },
    });
    expect(record).toEqual({
      id: 'c1:000000',
      projectId: 3,
      timestamp: RECEIVED - 1.5,
      observedAt: RECEIVED,
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      level: 'warn',
      severityNumber: 13,
      body: 'cache miss',
      attributes: {
        'sentry.release': { type: 'string', value: '1.2.3' },
        'sentry.environment': { type: 'string', value: 'prod' },
        hits: { type: 'integer', value: 3 },
        ratio: { type: 'double', value: 0.5 },
        cached: { type: 'boolean', value: false },
      },
      release: '1.2.3',
      environment: 'prod',
    });
  });

  it('reads the Go form: RFC 3339 timestamp with nanoseconds', () => {
    expect(one({ timestamp: '2026-11-21T21:59:59.123456789Z', level: 'info', body: 'x' })?.timestamp).toBeCloseTo(
      RECEIVED - 0.876543211,
      5,
    );
  });

  it('reads the Python form: severity only as an attribute, integers as text', () => {
    const record = one({
      timestamp: RECEIVED,
      body: 'x',
      attributes: { 'sentry.severity_number': { value: '17', type: 'integer' } },
    });
    expect(record).toMatchObject({ level: 'error', severityNumber: 17 });
    expect(record?.attributes['sentry.severity_number']).toEqual({ type: 'integer', value: 17 });
  });

  it.each([
    ['warning', 'warn', 13],
    ['fatal', 'fatal', 21],
    ['TRACE', 'trace', 1],
    ['nonsense', 'info', 9],
  ])('maps level %s to %s', (level, expected, severity) => {
    expect(one({ timestamp: RECEIVED, level, body: 'x' })).toMatchObject({ level: expected, severityNumber: severity });
  });

  it('infers attribute types from bare values and keeps arrays', () => {
    const record = one({
      timestamp: RECEIVED,
      body: 'x',
      attributes: { n: 2, f: 2.5, s: 'y', b: true, tags: { value: ['a', 'b'], type: 'array' } },
    });
    expect(record?.attributes).toEqual({
      n: { type: 'integer', value: 2 },
      f: { type: 'double', value: 2.5 },
      s: { type: 'string', value: 'y' },
      b: { type: 'boolean', value: true },
      tags: { type: 'array', value: ['a', 'b'] },
    });
  });

  it('reads a declared number only from its decimal text, and keeps what it cannot hold exactly as text', () => {
    const typed = (value: unknown, type: string) => ({ value, type });
    const record = one({
      timestamp: RECEIVED,
      body: 'x',
      attributes: {
        hex: typed('0x10', 'integer'),
        exponent: typed('1e3', 'integer'),
        big: typed('9223372036854775807', 'integer'),
        fraction: typed(1.5, 'integer'),
        negative: typed('-42', 'integer'),
        scientific: typed('1e3', 'double'),
        text: typed(5, 'string'),
        flag: typed(true, 'string'),
      },
    });
    expect(record?.attributes).toEqual({
      hex: { type: 'string', value: '0x10' },
      exponent: { type: 'string', value: '1e3' },
      big: { type: 'string', value: '9223372036854775807' },
      fraction: { type: 'double', value: 1.5 },
      negative: { type: 'integer', value: -42 },
      scientific: { type: 'double', value: 1000 },
      text: { type: 'string', value: '5' },
      flag: { type: 'string', value: 'true' },
    });
  });

  it('gives the records of a container ids that sort as text in the order they were sent', () => {
    // Records of one time are listed by id: as c1:0, c1:1, c1:10, c1:11, c1:2, ... they came out of order.
    const { records } = normalizeLogContainer({ items: Array.from({ length: 12 }, (_, i) => ({ body: `line ${i}` })) }, context);
    const ids = records.map((r) => r.id);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[11]).toBe('c1:000011');
  });

  it('counts what it cannot read (no body, not an object), and records beyond the declared count apart', () => {
    const result = normalizeLogContainer(
      { items: [{ body: 'a' }, { level: 'info' }, 'text', { body: 'b' }, { body: 'c' }] },
      { ...context, maxRecords: 4 },
    );
    expect(result.records.map((r) => [r.id, r.body])).toEqual([
      ['c1:000000', 'a'],
      ['c1:000003', 'b'],
    ]);
    expect(result.invalid).toBe(2);
    expect(result.undeclared).toBe(1);
    expect(normalizeLogContainer({ nope: true }, context)).toEqual({ records: [], invalid: 1, undeclared: 0 });
  });

  it('accounts for every declared record: those a container lacks, or all of a broken one, count as invalid', () => {
    const short = normalizeLogContainer({ items: [{ body: 'a' }] }, { ...context, maxRecords: 5 });
    expect([short.records.length, short.invalid, short.undeclared]).toEqual([1, 4, 0]);
    expect(normalizeLogContainer('not a container', { ...context, maxRecords: 7 })).toEqual({
      records: [],
      invalid: 7,
      undeclared: 0,
    });
  });

  it('cuts a long body or attribute before an emoji the limit would split, rather than storing half of it', () => {
    const long = (units: number) => `${'a'.repeat(units - 1)}😀 and more`;
    const record = one({
      timestamp: RECEIVED,
      level: 'info',
      body: long(65_536),
      attributes: { note: { type: 'string', value: long(8192) }, plain: long(8192) },
    })!;
    expect(record.body).toBe('a'.repeat(65_535));
    expect(record.attributes.note).toEqual({ type: 'string', value: 'a'.repeat(8191) });
    expect(record.attributes.plain).toEqual({ type: 'string', value: 'a'.repeat(8191) });
  });

  it('drops trace ids that are not 32 hex characters', () => {
    expect(one({ timestamp: RECEIVED, body: 'x', trace_id: 'xyz' })?.traceId).toBeNull();
    expect(one({ timestamp: RECEIVED, body: 'x', trace_id: '0'.repeat(32) })?.traceId).toBeNull();
  });

  it('keeps a record whose attribute nests 20,000 levels deep, bounded, and its neighbours', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i++) deep = { next: deep };
    let deepList: unknown = [];
    for (let i = 0; i < 20_000; i++) deepList = [deepList];
    const result = normalizeLogContainer(
      {
        items: [
          { body: 'before' },
          { body: 'deep', attributes: { tree: { value: deep, type: 'object' }, list: deepList } },
          { body: 'after' },
        ],
      },
      context,
    );
    expect(result.invalid).toBe(0);
    expect(result.records.map((r) => r.body)).toEqual(['before', 'deep', 'after']);
    const attributes = result.records[1]!.attributes;
    expect(attributes.tree?.type).toBe('object');
    expect(attributes.list?.type).toBe('array');
    // What is kept can be stored: it serializes, and within the attribute's bound.
    expect(JSON.stringify(attributes).length).toBeLessThan(2 * 8192);
  });

  it("shifts records by a client clock's drift of 55 minutes or more (sent_at against receipt), as Relay does for logs", () => {
    const day = 86_400;
    const sentAt = new Date((RECEIVED - day) * 1000).toISOString();
    const items = { items: [{ body: 'late clock', timestamp: RECEIVED - day - 2 }] };
    expect(normalizeLogContainer(items, { ...context, sentAt }).records[0]?.timestamp).toBe(RECEIVED - 2);
    const slightlyOff = new Date((RECEIVED - 54 * 60) * 1000).toISOString();
    const recent = { items: [{ body: 'small skew', timestamp: RECEIVED - 54 * 60 - 2 }] };
    expect(normalizeLogContainer(recent, { ...context, sentAt: slightlyOff }).records[0]?.timestamp).toBe(RECEIVED - 54 * 60 - 2);
  });
});

describe('an attribute named __proto__', () => {
  it('is kept as data, and the attributes inherit nothing from it', () => {
    const record = one(
      JSON.parse('{"body":"b","level":"info","attributes":{"__proto__":{"value":"x","type":"string"}}}') as never,
    )!;
    expect(Object.getPrototypeOf(record.attributes)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(record.attributes, '__proto__')?.value).toEqual({ value: 'x', type: 'string' });
    const shown = logAttributes(record);
    expect(Object.getPrototypeOf(shown)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(shown, '__proto__')?.value).toBe('x');
  });

  it('as a level, like "constructor", is an unknown level: info, severity 9', () => {
    for (const level of ['constructor', '__proto__', 'toString']) {
      expect(one({ body: 'b', level })).toMatchObject({ level: 'info', severityNumber: 9 });
    }
  });
});
