// Event and breadcrumb levels, with the aliases SDKs use (Relay's Level type).
import { ownValue } from './coerce.ts';

export const LEVELS = ['debug', 'info', 'warning', 'error', 'fatal'] as const;
export type Level = (typeof LEVELS)[number];

const ALIASES: Record<string, Level> = {
  debug: 'debug',
  info: 'info',
  log: 'info',
  warning: 'warning',
  warn: 'warning',
  error: 'error',
  fatal: 'fatal',
  critical: 'fatal',
};

// Python's logging levels, which its SDK may send as numbers.
const PYTHON_LEVELS: Record<number, Level> = { 10: 'debug', 20: 'info', 30: 'warning', 40: 'error', 50: 'fatal' };

export function parseLevel(value: unknown): Level | undefined {
  if (typeof value === 'number') return PYTHON_LEVELS[value];
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim().toLowerCase();
  if (/^\d+$/.test(trimmed)) return PYTHON_LEVELS[Number(trimmed)];
  return ownValue(ALIASES, trimmed);
}

/** Order for "at least this level" filters. */
export function levelRank(level: Level): number {
  return LEVELS.indexOf(level);
}
