import { describe, expect, it } from 'vitest';
import { routeItem } from './item-types.ts';

describe('routeItem', () => {
  it('stores events and logs, and acknowledges known types it does not store under their category', () => {
    expect(routeItem('event')).toEqual({ kind: 'event', category: 'error' });
    expect(routeItem('log')).toEqual({ kind: 'log', category: 'log_item' });
    expect(routeItem('attachment')).toEqual({ kind: 'not_stored', category: 'attachment', reason: 'item_not_stored' });
    expect(routeItem('integration')).toEqual({ kind: 'not_stored', category: 'internal', reason: 'internal_item_type' });
  });

  it('counts a type named like an Object member as unknown, not under that member', () => {
    for (const type of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'made-up']) {
      expect(routeItem(type)).toEqual({ kind: 'not_stored', category: 'unknown', reason: 'unknown_item_type' });
    }
  });
});
