// Lists of records in the text content as tables. A list answer repeats every key on every row
// (`"shortId":`, `"firstSeen":` ...), which is a third of its tokens; in the text half a list of
// two or more records is written {"columns": [...], "rows": [[...], ...]} instead, each row's
// values in the columns' order and null where a record lacks the field, whenever that is shorter.
// Still JSON, still escaped by the envelopes; the structured content keeps the records as they are,
// for clients that read fields by name.

import { ownValue } from '../core/event/coerce.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface Table {
  columns: string[];
  rows: Json[][];
}

/** The value with every list of records (at any depth) written as a table where that is shorter. */
export function withTables(value: unknown): unknown {
  if (Array.isArray(value)) {
    const items = value.map(withTables);
    if (items.length < 2 || !items.every(isRecord)) return items;
    const table = asTable(items);
    return JSON.stringify(table).length < JSON.stringify(items).length ? table : items;
  }
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, withTables(v)]));
  return value;
}

function asTable(records: Array<Record<string, unknown>>): Table {
  const columns = [...new Set(records.flatMap((record) => Object.keys(record)))];
  return { columns, rows: records.map((record) => columns.map((column) => (ownValue(record, column) ?? null) as Json)) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
