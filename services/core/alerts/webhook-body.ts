// The body of a webhook request (SPEC §6): one compact single-line JSON object whose encoder
// writes `<`, `>` and `&` as \u003c, \u003e and \u0026, as Go's encoding/json does, so event
// text cannot form markup in a receiver that echoes the body into HTML. JSON.stringify already
// escapes control characters, so the result never contains a line break.
export function encodeWebhookBody(payload: object): string {
  return JSON.stringify(payload).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
}
