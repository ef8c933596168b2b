// "1 event", "2 events": counts in sentences people and agents read (alert digests, tool summaries).

export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
