import { describe, expect, it } from 'vitest';
import { groupEvent, prepareEvent } from '../pipeline/process-event.ts';
import { md5 } from './compute-grouping.ts';

const group = (raw: unknown) => groupEvent(prepareEvent(raw, { eventId: 'a'.repeat(32), receivedAt: 1_800_000_000 })).grouping;

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
    // Its own parent; a repeated id; no root with id 0; a cycle under the root.
    expect(group({ exception: [linked('Error', 'inner', 1, 1), aggregate()] }).hashes).toEqual([all]);
    expect(group({ exception: [linked('Error', 'inner', 0, 0), aggregate()] }).hashes).toEqual([all]);
    expect(group({ exception: [linked('Error', 'inner', 2, 1), aggregate(1)] }).hashes).toEqual([all]);
    expect(group({ exception: [linked('Error', 'a', 2, 1), linked('Error', 'b', 1, 2), aggregate()] }).hashes).toEqual([
      md5(['Error', 'a', 'Error', 'b', 'AggregateError', 'Several failed']),
    ]);
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
