// The envelope around text Errata did not write, wherever it is handed to an agent: the MCP
// tools' answers (mcp/untrusted-data.ts) and the issue page's Markdown to paste into an agent's
// chat. Inside the markers the data is one line of JSON in printable ASCII: < and > and every
// code point outside ASCII (look-alikes of < and >, zero-width characters, line separators,
// bidirectional overrides) are written \uXXXX, so nothing inside can draw a marker, or a line
// that looks like one; JSON readers decode it back.

export const UNTRUSTED_OPEN = '<untrusted-data>';
export const UNTRUSTED_CLOSE = '</untrusted-data>';

/** What escapes into \uXXXX: outside printable ASCII, and the marker brackets. */
export const ESCAPED = /[^\x20-\x7e]|[<>]/g;

/**
 * JSON on one line with nothing but printable ASCII. Outside strings JSON is ASCII already, so
 * every character replaced here sits in a string, where \uXXXX is valid; astral characters
 * become their two UTF-16 halves, as JSON spells them.
 */
export function asciiJson(data: unknown): string {
  return JSON.stringify(data).replace(ESCAPED, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Captured application data as text: markers around escaped JSON. */
export function untrustedBlock(data: unknown): string {
  return `${UNTRUSTED_OPEN}\n${asciiJson(data)}\n${UNTRUSTED_CLOSE}`;
}
