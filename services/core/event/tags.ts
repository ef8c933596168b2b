// Tags arrive as an object or as a list of [key, value] pairs. Keys and values follow Relay's
// rules: keys from a-zA-Z0-9_.:- (spaces become dashes), both at most 200 characters, values
// without newlines, booleans written Python-style ("True"/"False").
import { isRecord, setOwn, storableText, type Notes } from './coerce.ts';

const MAX_TAG = 200;
const KEY_PATTERN = /^[a-zA-Z0-9_.:-]+$/;

export function normalizeTags(raw: unknown, notes: Notes): Record<string, string> {
  const pairs: Array<[unknown, unknown]> = [];
  if (Array.isArray(raw)) {
    for (const pair of raw) {
      if (Array.isArray(pair) && pair.length === 2) pairs.push([pair[0], pair[1]]);
      else notes.push({ type: 'invalid_data', name: 'tags' });
    }
  } else if (isRecord(raw)) {
    // One by one: a spread of 130,000 entries (a 1 MiB event of short tags) overflowed the stack.
    for (const entry of Object.entries(raw)) pairs.push(entry);
  } else if (raw !== undefined && raw !== null) {
    notes.push({ type: 'invalid_data', name: 'tags' });
  }
  const tags: Record<string, string> = {};
  for (const [rawKey, rawValue] of pairs) {
    const key = typeof rawKey === 'string' ? rawKey.trim().replace(/ /g, '-') : undefined;
    const value = tagValue(rawValue);
    if (!key || key.length > MAX_TAG || !KEY_PATTERN.test(key)) {
      notes.push({
        type: 'invalid_data',
        name: 'tags',
        value: typeof rawKey === 'string' ? rawKey.slice(0, MAX_TAG) : undefined,
      });
      continue;
    }
    if (value === undefined || value.length > MAX_TAG || value.includes('\n')) {
      notes.push({ type: 'invalid_data', name: `tags.${key}` });
      continue;
    }
    setOwn(tags, key, value);
  }
  return tags;
}

function tagValue(value: unknown): string | undefined {
  if (typeof value === 'string') return storableText(value.trim());
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return '';
  return undefined;
}
