import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';

const processed = (raw: unknown) => groupEvent(prepareEvent(raw, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 }));
const group = (raw: unknown) => processed(raw).grouping;
const summary = (raw: unknown) => processed(raw).summary;

/** An exception linked into a tree by its mechanism; `group` marks an exception group. */
function linked(type: string, value: string, id: number, parent?: number, isGroup = false) {
  return {
    type,
    value,
    mechanism: {
      type: 'chained',
      exception_id: id,
      ...(parent === undefined ? {} : { parent_id: parent }),
      is_exception_group: isGroup,
    },
  };
}
const aggregate = (id = 0, parent?: number) => linked('AggregateError', 'Several failed', id, parent, true);

describe('exception groups are grouped by their members, as Sentry does', () => {
  it('groups a group of one repeated failure as that failure alone', () => {
    const repeated = group({
      exception: [linked('TimeoutError', 'after 30s', 2, 0), linked('TimeoutError', 'after 31s', 1, 0), aggregate()],
    });
    const alone = group({ exception: [{ type: 'TimeoutError', value: 'after 5s' }] });
    expect(repeated.hashes).toEqual([md5(['TimeoutError', 'after <duration>'])]);
    expect(repeated.hashes).toEqual(alone.hashes);
  });

  it('keeps one of each distinct member, ordered by type descending, then the root group', () => {
    const event = (order: 'ab' | 'ba') => ({
      exception: [
        ...(order === 'ab'
          ? [linked('ZodError', 'bad input', 2, 0), linked('FetchError', 'offline', 1, 0)]
          : [linked('FetchError', 'offline', 2, 0), linked('ZodError', 'bad input', 1, 0)]),
        aggregate(),
      ],
    });
    const expected = md5(['ZodError', 'bad input', 'FetchError', 'offline', 'AggregateError', 'Several failed']);
    expect(group(event('ab')).hashes).toEqual([expected]);
    expect(group(event('ba')).hashes).toEqual([expected]);
  });

  it('keeps members of one type with different messages apart, in the order Sentry reads them', () => {
    const hashes = group({
      exception: [linked('Error', 'disk full', 2, 0), linked('Error', 'no route', 1, 0), aggregate()],
    }).hashes;
    expect(hashes).toEqual([md5(['Error', 'no route', 'Error', 'disk full', 'AggregateError', 'Several failed'])]);
  });

  it('looks through nested groups, and follows a lone member down its first cause', () => {
    const nested = group({
      exception: [linked('Error', 'Test 2', 3, 1), linked('Error', 'Test 1', 2, 0), aggregate(1, 0), aggregate(0)],
    });
    expect(nested.hashes).toEqual([md5(['Error', 'Test <int>'])]);
    const withCause = group({
      exception: [linked('IOError', 'socket closed', 2, 1), linked('DbError', 'Query 7 failed', 1, 0), aggregate()],
    });
    expect(withCause.hashes).toEqual([md5(['DbError', 'Query <int> failed', 'IOError', 'socket closed'])]);
  });

  it('leaves a chain whose tree is broken as sent', () => {
    const all = md5(['Error', 'inner', 'AggregateError', 'Several failed']);
    // Its own parent; a repeated id; no root with id 0; an id missing.
    expect(group({ exception: [linked('Error', 'inner', 1, 1), aggregate()] }).hashes).toEqual([all]);
    expect(group({ exception: [linked('Error', 'inner', 0, 0), aggregate()] }).hashes).toEqual([all]);
    expect(group({ exception: [linked('Error', 'inner', 2, 1), aggregate(1)] }).hashes).toEqual([all]);
    const noId = { type: 'Error', value: 'inner', mechanism: { type: 'chained', parent_id: 0 } };
    expect(group({ exception: [noId, aggregate()] }).hashes).toEqual([all]);
  });

  it('leaves a group with no member under it as sent, as Sentry does since January 2026', () => {
    // Sentry's corpus input exception-groups-bad-with-cycle: the members are each other's parent,
    // so none hangs under the root. Its snapshot of December 2024 grouped the root alone;
    // getsentry/sentry#105667 keeps the list as sent instead.
    const raw = {
      exception: [
        linked('System.Exception', 'Some Inner Exception', 2, 1),
        linked('MyApp.Exception', 'Test 1', 1, 2),
        linked('System.AggregateException', 'One or more errors occurred.', 0, undefined, true),
      ],
    };
    expect(group(raw).hashes).toEqual([
      md5([
        'System.Exception',
        'Some Inner Exception',
        'MyApp.Exception',
        'Test <int>',
        'System.AggregateException',
        'One or more errors occurred.',
      ]),
    ]);
    expect(summary(raw).title).toBe('System.AggregateException: One or more errors occurred.');
  });

  it('leaves the list as sent when the walk down the first causes loops, the title still the member', () => {
    // The root names the member as its parent: the member's first cause is the root, whose first
    // member is the member again. Sentry has noted the member as the main exception by then.
    const raw = {
      exception: [linked('AggregateError', 'Several failed', 0, 1, true), linked('TimeoutError', 'after 30s', 1, 0)],
    };
    expect(group(raw).hashes).toEqual([md5(['AggregateError', 'Several failed', 'TimeoutError', 'after <duration>'])]);
    expect(summary(raw).title).toBe('TimeoutError: after 30s');
  });

  it('leaves the chains of Python SDK 3 events as sent, like Sentry', () => {
    const exception = [linked('KeyError', 'x', 2, 0), linked('KeyError', 'x', 1, 0), aggregate()];
    const values = ['KeyError', 'x', 'KeyError', 'x', 'AggregateError', 'Several failed'];
    expect(group({ platform: 'python', sdk: { name: 'sentry.python', version: '3.1.0' }, exception }).hashes).toEqual([
      md5(values),
    ]);
    expect(group({ platform: 'python', sdk: { name: 'sentry.python', version: '2.40.0' }, exception }).hashes).toEqual([
      md5(['KeyError', 'x']),
    ]);
  });
});

describe('exception groups are titled as Sentry titles them', () => {
  it('titles a group of one distinct failure after that failure, type and value', () => {
    const titled = summary({
      exception: [linked('TimeoutError', 'after 30s', 2, 0), linked('TimeoutError', 'after 30s', 1, 0), aggregate()],
    });
    expect(titled.title).toBe('TimeoutError: after 30s');
    expect(titled.metadata).toMatchObject({ type: 'TimeoutError', value: 'after 30s' });
  });

  it('titles it after the member that stands for the group, not the cause followed under it', () => {
    const titled = summary({
      exception: [linked('IOError', 'socket closed', 2, 1), linked('DbError', 'Query 7 failed', 1, 0), aggregate()],
    });
    expect(titled.title).toBe('DbError: Query 7 failed');
  });

  it('looks through nested groups to the one member', () => {
    const titled = summary({
      exception: [linked('ValueError', 'bad', 2, 1), aggregate(1, 0), aggregate(0)],
    });
    expect(titled.title).toBe('ValueError: bad');
  });

  it('tells NSError members apart by their code', () => {
    const nsError = (id: number, code: number) => ({
      type: 'NSError',
      value: 'The operation could not be completed.',
      mechanism: { type: 'chained', exception_id: id, parent_id: 0, meta: { ns_error: { domain: 'NSCocoaErrorDomain', code } } },
    });
    expect(summary({ platform: 'cocoa', exception: [nsError(2, 4), nsError(1, 260), aggregate()] }).title).toBe(
      'AggregateError: Several failed',
    );
    expect(summary({ platform: 'cocoa', exception: [nsError(2, 4), nsError(1, 4), aggregate()] }).title).toBe(
      'NSError: The operation could not be completed.',
    );
  });

  it('keeps the group as the title when its members differ', () => {
    const titled = summary({
      exception: [linked('ZodError', 'bad input', 2, 0), linked('FetchError', 'offline', 1, 0), aggregate()],
    });
    expect(titled.title).toBe('AggregateError: Several failed');
  });

  it('titles a chain whose root is no group after its last exception, as before', () => {
    // The root is then the one top-level exception, with id 0, which Sentry does not take as main.
    const titled = summary({
      exception: [
        linked('KeyError', 'x', 1, 0),
        { ...linked('RuntimeError', 'wrapped', 0), mechanism: { type: 'chained', exception_id: 0 } },
      ],
    });
    expect(titled.title).toBe('RuntimeError: wrapped');
  });

  it('leaves the title of Python SDK 3 events, which Sentry does not filter, on the last exception', () => {
    const exception = [linked('KeyError', 'x', 2, 0), linked('KeyError', 'x', 1, 0), aggregate()];
    expect(summary({ platform: 'python', sdk: { name: 'sentry.python', version: '3.1.0' }, exception }).title).toBe(
      'AggregateError: Several failed',
    );
    expect(summary({ platform: 'python', sdk: { name: 'sentry.python', version: '2.40.0' }, exception }).title).toBe(
      'KeyError: x',
    );
  });
});
