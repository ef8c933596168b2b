// Keyset pagination shared by every list: stores return a page and an opaque cursor for the
// next one. The cursor is the sort key of the last item, base64url JSON, validated on the way in.
import { UserInputError } from '../errors.ts';

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

type CursorKey = Array<string | number>;

export function encodeCursor(key: CursorKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, shape: Array<'string' | 'number'>): CursorKey {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!Array.isArray(key) || key.length !== shape.length || key.some((part, i) => typeof part !== shape[i])) {
    throw invalidCursor();
  }
  return key as CursorKey;
}

function invalidCursor(): UserInputError {
  return new UserInputError('invalid cursor: pass back the nextCursor value of the previous page unchanged');
}
