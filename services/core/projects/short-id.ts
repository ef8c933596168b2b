// Issue short ids: `<PREFIX>-<n>`, the prefix being the project slug upper-cased and n a
// per-project counter starting at 1 (WEB-1, WEB-2, ...).
import { isRowId } from '../row-id.ts';

export function formatShortId(projectSlug: string, number: number): string {
  return `${projectSlug.toUpperCase()}-${number}`;
}

/** The project slug and number of a short id, or undefined when the text is not one. */
export function parseShortId(text: string): { projectSlug: string; number: number } | undefined {
  const match = /^([A-Za-z0-9][A-Za-z0-9_-]*)-(\d{1,15})$/.exec(text.trim());
  if (!match) return undefined;
  const number = Number(match[2]);
  // Short numbers are Postgres integers: a larger one names no issue, and failed the query.
  if (!isRowId(number)) return undefined;
  return { projectSlug: match[1]!.toLowerCase(), number };
}
