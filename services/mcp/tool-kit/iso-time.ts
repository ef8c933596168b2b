// Times in tool results: ISO 8601 in UTC to the second. Milliseconds cost an agent two tokens a
// time and order nothing an agent triages by (events of one issue keep theirs in log and
// breadcrumb lines, where the order within a second matters).

export function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
