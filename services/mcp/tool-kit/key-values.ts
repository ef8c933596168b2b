// Data an application attached, on one line as logfmt does it: `route=/checkout user.id=42`.
// Inside get_issue_context's JSON answer a JSON object in a line pays an escaped quote around
// every key and string (`{\"route\":\"/checkout\"}`); key=value pays none where nothing needs
// quoting. A value is quoted, as a JSON string, only when it is empty or holds a space, a quote or
// an equals sign, so a reader can still tell where each value ends; an object or list stays JSON.

export function keyValues(entries: Array<[string, unknown]>): string {
  return entries.map(([key, value]) => `${key}=${written(value)}`).join(' ');
}

function written(value: unknown): string {
  if (typeof value === 'string') return value === '' || /[\s"=]/.test(value) ? JSON.stringify(value) : value;
  if (value === null || typeof value !== 'object') return String(value);
  return JSON.stringify(value);
}
