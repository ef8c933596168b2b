// Breadcrumbs arrive as `{"values": [...]}` (Python, PHP, Ruby) or a bare array (JS, Go).
// They keep the order received and the newest MAX_BREADCRUMBS, as Sentry does.
import { boundedJson, cappedString, isRecord, valuesOf, type Notes } from './coerce.ts';
import type { Breadcrumb } from './event.ts';
import { parseLevel } from './level.ts';
import { parseTimestamp } from './timestamp.ts';

const MAX_BREADCRUMBS = 100;

export function normalizeBreadcrumbs(raw: unknown, notes: Notes): Breadcrumb[] {
  const out: Breadcrumb[] = [];
  for (const value of valuesOf(raw).slice(-MAX_BREADCRUMBS)) {
    if (!isRecord(value)) {
      notes.push({ type: 'invalid_data', name: 'breadcrumbs.values' });
      continue;
    }
    const crumb: Breadcrumb = {
      type: cappedString(value.type, 64, 'breadcrumb.type', notes) || 'default',
      level: parseLevel(value.level) ?? 'info',
    };
    const timestamp = parseTimestamp(value.timestamp);
    if (timestamp !== undefined) crumb.timestamp = timestamp;
    const category = cappedString(value.category, 128, 'breadcrumb.category', notes);
    if (category) crumb.category = category;
    const message = cappedString(value.message, 8192, 'breadcrumb.message', notes);
    if (message) crumb.message = message;
    if (value.data !== undefined && value.data !== null) crumb.data = boundedJson(value.data, 5, 2048, 100);
    out.push(crumb);
  }
  return out;
}
