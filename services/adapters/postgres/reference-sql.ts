// A payload segment reference (`@<segment>:<offset>:<length>`, payload-segments.ts) taken apart
// in SQL, for the statements that select erasures or rows by segment. One spelling of each, so
// that every statement reads a reference as PayloadSegments does.
import { REFERENCE } from './payload-segments.ts';

/** The segment named by the reference in `column` (text; empty or garbage where it is malformed). */
export function segmentOfReference(column: string): string {
  return `split_part(substr(${column}, 2), ':', 1)`;
}

/** Where the bytes of the reference in `column` end (bigint); null where it is not a well-formed reference. */
export function endOfReference(column: string): string {
  return `(CASE WHEN ${column} ~ '${REFERENCE.source}'
    THEN split_part(${column}, ':', 2)::bigint + split_part(${column}, ':', 3)::bigint END)`;
}
