// Sentry's normalize_message_for_grouping: keep the first two non-blank lines, then replace
// variable parts (ids, numbers, addresses, dates...) with `<name>` placeholders so that
// "Order 1234 failed" and "Order 5678 failed" become one issue. Patterns and their order
// follow getsentry/sentry src/sentry/grouping/parameterization.py (newstyle:2023-01-11);
// the first alternative that matches at a position wins, scanning left to right.

import { HOSTNAME_PATTERN, hostnameStarts } from './hostname-starts.ts';

interface Parameter {
  name: string;
  pattern: string;
  /** Matched only right after this text (key=value), which itself stays. */
  after?: string;
}

const IPV4 = String.raw`((25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])\.){3,3}(25[0-5]|(2[0-4]|1{0,1}[0-9]){0,1}[0-9])`;
const H = '[0-9a-fA-F]{1,4}';
const IPV6 = [
  `(${H}:){7,7}${H}`,
  `(${H}:){1,7}:`,
  `(${H}:){1,6}:${H}`,
  `(${H}:){1,5}(:${H}){1,2}`,
  `(${H}:){1,4}(:${H}){1,3}`,
  `(${H}:){1,3}(:${H}){1,4}`,
  `(${H}:){1,2}(:${H}){1,5}`,
  `${H}:((:${H}){1,6})`,
  `:((:${H}){1,7}|:)`,
  'fe80:(:[0-9a-fA-F]{0,4}){0,4}%[0-9a-zA-Z]{1,}',
  `::(ffff(:0{1,4}){0,1}:){0,1}${IPV4}`,
  `(${H}:){1,4}:${IPV4}\\b`,
].join('|');

const MONTHS = 'Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec';
const DAYS = 'Sun|Mon|Tue|Wed|Thu|Fri|Sat';
const ZONE = '(?:UT|GMT|(?:E|C|M|P)(?:ST|DT)|[A-IK-Z])';
const DATE = [
  String.raw`((?:${DAYS}),\s\d{1,2}\s(?:${MONTHS})\s\d{2,4}\s\d{1,2}:\d{1,2}(:\d{1,2})?\s([-\+][\d]{2}[0-5][\d]|${ZONE}))`,
  String.raw`(((?:${DAYS})\s)?(?:${MONTHS})\s[0-3]\d,\s\d{2,4})`,
  String.raw`((?:Sun|Sunday|Mon|Monday|Tue|Tuesday|Wed|Wednesday|Thu|Thursday|Fri|Friday|Sat|Saturday),\s\d{2}-(?:${MONTHS})-\d{2}\s\d{2}:\d{2}:\d{2}\s${ZONE})`,
  String.raw`(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z?([+-]?\d{2}:\d{2})?)`,
  String.raw`((?:${DAYS})\s(?:${MONTHS})\s\d{2}\s\d{4}\s\d{2}:\d{2}:\d{2}\sGMT[+-]\d{4}(?:\s\([^)]+\))?)`,
  String.raw`((\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d:?[0-5]\d\.\d+([+-][0-2]\d:?[0-5]\d|Z))|(\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d:?[0-5]\d([+-][0-2]\d:?[0-5]\d|Z))|(\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d([+-][0-2]\d:?[0-5]\d|Z)))`,
  String.raw`((\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d:?[0-5]\d\.\d+)|(\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d:?[0-5]\d)|(\d{4}-?[01]\d-?[0-3]\d[\sT][0-2]\d:?[0-5]\d))`,
  String.raw`((?<!\d)([1-9]|1[0-2]):[0-5]\d(:[0-5]\d)?(?![\d:])(?:\s?[aApP][Mm])?)`,
  String.raw`((?<!\d)(0?\d|1\d|2[0-3]):[0-5]\d(:[0-5]\d)?(?![\d:]))`,
  String.raw`(\d{4}-[01]\d-[0-3]\d)`,
  String.raw`([0-2]\d:[0-5]\d:[0-5]\d)`,
  String.raw`(\b(?:(${DAYS})\s+)?(${MONTHS})\s+([\d]{1,2})\s+([\d]{2}:[\d]{2}:[\d]{2})\s+[\d]{4})`,
  String.raw`(\b(?:(${DAYS}),\s+)?(0[1-9]|[1-2]?[\d]|3[01])\s+(${MONTHS})\s+(19[\d]{2}|[2-9][\d]{3})\s+(2[0-3]|[0-1][\d]):([0-5][\d])(?::(60|[0-5][\d]))?\s+([-\+][\d]{2}[0-5][\d]|${ZONE}))`,
  String.raw`(datetime.datetime\(.*?\))`,
].join('|');

export const PARAMETERS: readonly Parameter[] = [
  // Sentry's pattern, anchored at the start of a run of address characters: the same matches,
  // without rescanning the run from each of its characters (quadratic on long words).
  {
    name: 'email',
    pattern: "(?<![a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-])[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9-]+(?:\\.[a-zA-Z0-9-]+)*",
  },
  { name: 'url', pattern: String.raw`\b(wss?|https?|ftp):\/\/[^\s/$.?#].[^\s]*` },
  { name: 'hostname', pattern: HOSTNAME_PATTERN },
  { name: 'ip', pattern: `(?<![0-9a-zA-Z_])(${IPV6})(?![0-9a-zA-Z])|(\\b${IPV4}\\b)` },
  { name: 'traceparent', pattern: String.raw`(\b00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]\b)|(\b1-[0-9a-f]{8}-[0-9a-f]{24}\b)` },
  { name: 'uuid', pattern: String.raw`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b` },
  { name: 'sha1', pattern: String.raw`\b[0-9a-fA-F]{40}\b` },
  { name: 'md5', pattern: String.raw`\b[0-9a-fA-F]{32}\b` },
  { name: 'date', pattern: DATE },
  // Sentry's second branch has no anchor, so on a run of digits with no "s" after it, it was
  // tried from every digit of the run (quadratic). A match from inside a run is also one from the
  // digit before, which the scan tried first, so `(?<!\d)` changes nothing unless an earlier match
  // ended in that digit: "2024-01-015s" is "<date>5s" here and "<date><duration>" in Sentry.
  { name: 'duration', pattern: String.raw`\b(\d+ms)|(?<!\d)(\d+(\.\d+)?s)\b` },
  { name: 'swift_txn_id', pattern: String.raw`(\btx[0-9a-f]{21}-[0-9a-f]{10}\S*)` },
  {
    name: 'hex',
    pattern: String.raw`(\b0[xX][0-9a-fA-F]+\b)|(\b(?=[a-f]*[0-9])[0-9a-f]{8,128}\b)|(\b(?=[A-F]*[0-9])[0-9A-F]{8,128}\b)`,
  },
  { name: 'git_sha', pattern: String.raw`(\b(?=[a-f]*[0-9])(?=[0-9]*[a-f])[0-9a-f]{7}\b)` },
  { name: 'float', pattern: String.raw`-\d+\.\d+\b|\b\d+\.\d+\b` },
  { name: 'int', pattern: String.raw`-\d+\b|\b\d+\b` },
  { name: 'quoted_str', pattern: `'([^']+)'|"([^"]+)"`, after: '=' },
  { name: 'bool', pattern: 'True|true|False|false', after: '=' },
];

/**
 * Sentry's groups made non-capturing: each match builds an array of every capture, and the
 * patterns above hold about ninety; one group per parameter is all `parameterize` reads. That
 * made a message with a few numbers in it about half as costly (a scratch benchmark, 13-16 µs
 * against 5-8).
 */
function nonCapturing(pattern: string): string {
  return pattern.replace(/(?<!\\)\((?!\?)/g, '(?:');
}

/** The other parameters, one capture each; hostname is found by `hostnameStarts` instead. */
const OTHERS = PARAMETERS.filter((p) => p.name !== 'hostname');
const OTHERS_COMBINED = new RegExp(
  OTHERS.map((p) => `${p.after ? `(?<=${p.after})` : ''}(${nonCapturing(p.pattern)})`).join('|'),
  'g',
);
const HOSTNAME_ORDER = PARAMETERS.findIndex((p) => p.name === 'hostname');
const HOSTNAME_AT = new RegExp(HOSTNAME_PATTERN, 'y');

interface Found {
  index: number;
  length: number;
  parameter: Parameter;
}

function nextOther(text: string, from: number): Found | null {
  OTHERS_COMBINED.lastIndex = from;
  const match = OTHERS_COMBINED.exec(text);
  if (!match) return null;
  const k = match.findIndex((capture, i) => i > 0 && capture !== undefined) - 1;
  return { index: match.index, length: match[0].length, parameter: OTHERS[k]! };
}

/**
 * What one regex of every parameter, tried in order at each position from left to right, would
 * replace: the leftmost match wins, and at one position the parameter listed first.
 */
export function parameterize(text: string): string {
  const hostnameAt = hostnameStarts(text);
  let out = '';
  let position = 0;
  let other = nextOther(text, 0);
  for (;;) {
    // The leftmost match from a position is still the leftmost from any later one before it.
    if (other && other.index < position) other = nextOther(text, position);
    const hostname = hostnameAt(position);
    const hostnameFirst =
      hostname >= 0 &&
      (!other || hostname < other.index || (hostname === other.index && PARAMETERS.indexOf(other.parameter) > HOSTNAME_ORDER));
    let found: Found;
    if (hostnameFirst) {
      HOSTNAME_AT.lastIndex = hostname;
      found = { index: hostname, length: HOSTNAME_AT.exec(text)![0].length, parameter: PARAMETERS[HOSTNAME_ORDER]! };
    } else if (other) {
      found = other;
    } else {
      return out + text.slice(position);
    }
    out += `${text.slice(position, found.index)}<${found.parameter.name}>`;
    position = found.index + found.length;
    // As String.replace does after an empty match (none of the patterns makes one today).
    if (found.length === 0) out += text.charAt(position++);
  }
}

/**
 * Longest line that is parameterized. One of Sentry's patterns still costs time quadratic in a
 * line's length on hostile input (`datetime.datetime(` repeated: `.*?` to the line's end from
 * each); Sentry has no such cap, so two messages that differ only after this many characters of
 * a line group together here.
 */
const MAX_LINE = 1024;

/** The first two non-blank lines (each at most MAX_LINE long), with "..." when anything was left out. */
export function trimToTwoLines(text: string): string {
  const lines = text.split(/\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/).filter((line) => line.trim() !== '');
  const trimmed = lines
    .slice(0, 2)
    .map((line) => line.slice(0, MAX_LINE))
    .join('\n');
  return trimmed === text ? trimmed : `${trimmed}...`;
}

export function normalizeMessageForGrouping(text: string): string {
  return parameterize(trimToTwoLines(text));
}
