// A page of logs' cursor: the sort key of its last record. Newest first (the default) it is
// [time, id], the shape it always had, so cursors handed out before are still good; oldest first
// it names its order, ['oldest', time, id]. A cursor of one order given with the other is refused,
// saying so: before, a newest-first cursor read with `sort: oldest` silently read page one again.
import { UserInputError } from '../errors.ts';
import type { LogOrder } from '../ports/log-store.ts';
import { decodeCursor, encodeCursor, peekCursor } from '../ports/page.ts';

/** How a store writes a record's time in its cursor: an instant (Postgres) or microseconds (ClickHouse). */
type TimePart = 'time' | 'integer';

export function encodeLogCursor(order: LogOrder | undefined, time: string | number, id: string): string {
  return order === 'oldest' ? encodeCursor(['oldest', time, id]) : encodeCursor([time, id]);
}

export function decodeLogCursor<T extends string | number>(
  cursor: string,
  order: LogOrder | undefined,
  timePart: TimePart,
): [T, string] {
  const wanted = order ?? 'newest';
  const from = orderOfCursor(cursor);
  if (from !== undefined && from !== wanted) {
    // Oldest-first cursors from before they named their order look like newest-first ones.
    const origin = from === 'newest' ? 'logs newest first (or oldest first, from before an upgrade)' : `logs ${from} first`;
    throw new UserInputError(
      `this cursor pages ${origin}, not ${wanted} first: start again from the first page, or keep the sort it came with`,
    );
  }
  if (wanted === 'oldest') {
    const [, time, id] = decodeCursor(cursor, ['string', timePart, 'string']);
    return [time as T, id as string];
  }
  const [time, id] = decodeCursor(cursor, [timePart, 'string']);
  return [time as T, id as string];
}

/** The order a cursor of ours came from, by its shape; undefined for anything else (decodeCursor refuses it). */
function orderOfCursor(cursor: string): LogOrder | undefined {
  const key = peekCursor(cursor);
  if (!key) return undefined;
  if (key.length === 2) return 'newest';
  return key.length === 3 && key[0] === 'oldest' ? 'oldest' : undefined;
}
