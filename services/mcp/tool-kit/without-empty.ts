// Sections with nothing in them cost an agent tokens and say nothing a missing key does not say:
// a tool passes the fields that may be empty through here, and its schema marks them optional.

/** The record without its null, undefined, '' and [] fields (one level deep). */
export function withoutEmpty<T extends Record<string, unknown>>(record: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(
    Object.entries(record).filter(
      ([, value]) => value !== null && value !== undefined && value !== '' && !(Array.isArray(value) && value.length === 0),
    ),
  ) as { [K in keyof T]?: Exclude<T[K], null> };
}
