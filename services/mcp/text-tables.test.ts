import { describe, expect, it } from 'vitest';
import { fromTables } from '../../test/support/text-tables.ts';
import { withTables } from './text-tables.ts';

const rows = [
  { shortId: 'WEB-2', level: 'error', count: 3, isRegression: true },
  { shortId: 'WEB-1', level: 'warning', count: 1 },
  { shortId: 'WEB-3', level: 'info', count: 7 },
];

describe('lists of records in the text', () => {
  it('become a table, null where a record lacks the field, and read back to the same records', () => {
    const text = withTables({ project: 'web', issues: rows });
    expect(text).toEqual({
      project: 'web',
      issues: {
        columns: ['shortId', 'level', 'count', 'isRegression'],
        rows: [
          ['WEB-2', 'error', 3, true],
          ['WEB-1', 'warning', 1, null],
          ['WEB-3', 'info', 7, null],
        ],
      },
    });
    expect(JSON.stringify(text).length).toBeLessThan(JSON.stringify({ project: 'web', issues: rows }).length);
    expect(fromTables(text)).toEqual({ project: 'web', issues: rows });
  });

  it('leave a cell null where a record lacks a field named like an Object member', () => {
    const plain = ['x', 'y', 'z', 'w'].map((category, i) => ({ shortId: `A-${i + 2}`, category }));
    const captured = [JSON.parse('{"__proto__": "p", "shortId": "A-1"}'), ...plain];
    expect(withTables({ items: captured })).toEqual({
      items: {
        columns: ['__proto__', 'shortId', 'category'],
        rows: [
          ['p', 'A-1', null],
          [null, 'A-2', 'x'],
          [null, 'A-3', 'y'],
          [null, 'A-4', 'z'],
          [null, 'A-5', 'w'],
        ],
      },
    });
  });

  it('are tables at any depth, and records inside a table cell are kept', () => {
    const nested = { untrustedData: { issues: rows.map((r) => ({ ...r, user: { id: r.shortId } })) } };
    const text = withTables(nested) as { untrustedData: { issues: { rows: unknown[][] } } };
    expect(text.untrustedData.issues.rows[0]).toContainEqual({ id: 'WEB-2' });
    expect(fromTables(text)).toEqual(nested);
  });

  it('stay lists when a table would not be shorter: one record, plain values, or records with nothing in common', () => {
    expect(withTables([rows[0]])).toEqual([rows[0]]);
    expect(withTables(['a', 'b'])).toEqual(['a', 'b']);
    const unlike = [{ a: 1 }, { b: 2 }];
    expect(withTables(unlike)).toEqual(unlike);
    expect(withTables([])).toEqual([]);
  });
});
