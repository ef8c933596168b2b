// The short line the Agent activity page shows for a tool call's arguments: names and short
// values, e.g. `shortId=WEB-12 action=resolve note="Fixed by the retry in…"`. Built when the mcp
// role records a call (mcp/call-recorder.ts), from arguments an agent chose, so it is kept short
// and never holds a secret: a value under a secret-sounding name, anything shaped like an Errata
// token, and a URL's user part (a DSN's key) are replaced, and free text is cut.

/** The whole line's budget, in characters. */
export const MAX_SUMMARY_CHARS = 200;
/** One string value's budget: enough for an id, a slug or the start of a note. */
const MAX_VALUE_CHARS = 40;
const MAX_ITEMS = 5;
/**
 * How much of one string is cleaned and searched for secrets before it is cut to MAX_VALUE_CHARS.
 * The secret patterns backtrack over the whole text they are given (URL_USER is quadratic in a
 * run like `a.a.a…`: 40 KB took 0.85 s, so a 1 MB argument held the event loop for minutes, even
 * on a rate-limited call); a secret that starts within the shown part is still matched in this
 * much (a key-like run of 32 characters or more, cut, is still one).
 */
const MAX_SCANNED_CHARS = 256;
/** Lists nested deeper than this show as `…`: an agent's arguments can nest as deep as JSON allows. */
const MAX_DEPTH = 3;
const REDACTED = '[redacted]';

const SECRET_NAME = /token|secret|password|passwd|dsn|auth|cookie|credential|api[-_]?key|private/i;
// errata_agent_... (agent tokens), errata_... (upload tokens), a bearer credential.
const SECRET_VALUE = /errata_[A-Za-z0-9_-]{6,}|bearer\s+\S+/gi;
// Any other long run of key-like characters (a DSN's 32-hex key, a foreign API key), except a
// commit's 40 or 64 hex digits, which an agent passes to resolve and which hide nothing.
const KEY_LIKE = /[A-Za-z0-9+/_-]{32,}={0,2}/g;
const COMMIT = /^(?:[a-f0-9]{40}|[a-f0-9]{64})$/i;
const URL_USER = /\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

export function argumentSummary(args: unknown): string {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return args === undefined ? '' : value('', args, 0);
  const parts = Object.entries(args as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .map(([name, v]) => `${shortName(name)}=${SECRET_NAME.test(name) ? REDACTED : value(name, v, 0)}`);
  return cut(parts.join(' '), MAX_SUMMARY_CHARS);
}

function value(name: string, v: unknown, depth: number): string {
  if (typeof v === 'string') return quoted(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (Array.isArray(v)) {
    if (depth >= MAX_DEPTH) return '…';
    const shown = v.slice(0, MAX_ITEMS).map((item) => value(name, item, depth + 1));
    return `[${shown.join(',')}${v.length > MAX_ITEMS ? `,+${v.length - MAX_ITEMS}` : ''}]`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>);
    const shown = entries
      .slice(0, MAX_ITEMS)
      .map(
        ([key, inner]) =>
          `${shortName(key)}:${SECRET_NAME.test(key) ? REDACTED : typeof inner === 'object' && inner !== null ? '…' : value(key, inner, depth + 1)}`,
      );
    return `{${shown.join(',')}${entries.length > MAX_ITEMS ? `,+${entries.length - MAX_ITEMS}` : ''}}`;
  }
  return typeof v;
}

/** A string as the line shows it: secrets out, whitespace collapsed, cut; quoted when it has spaces or quotes. */
function quoted(text: string): string {
  const shown = cut(redact(clean(scanned(text))), MAX_VALUE_CHARS);
  return /^[^\s"=]+$/.test(shown) ? shown : JSON.stringify(shown);
}

/** An argument's or a key's name as shown; a secret-sounding name is judged on the whole of it. */
function shortName(name: string): string {
  return cut(clean(scanned(name)), 30);
}

/** The part of a text that is cleaned and searched. */
function scanned(text: string): string {
  return wholePrefix(text, MAX_SCANNED_CHARS);
}

function redact(text: string): string {
  return text
    .replace(URL_USER, `$1${REDACTED}@`)
    .replace(SECRET_VALUE, REDACTED)
    .replace(KEY_LIKE, (run) => (COMMIT.test(run) ? run : REDACTED));
}

/** Control characters and runs of whitespace become one space: the line stays one line. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\s]+/g, ' ').trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${wholePrefix(text, max - 1)}…`;
}

/**
 * At most the first `max` UTF-16 units of the text, never ending in half a surrogate pair: the
 * line is stored as text and shown as is.
 */
function wholePrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max);
}
