// What a browser security report groups by (Sentry's csp:v1, hpkp:v1, expect-ct:v1 and
// expect-staple:v1 strategies): the CSP directive and where the blocked resource came from; for
// the certificate reports, the kind of report and the host. Reports arrive as events carrying a
// `csp`, `hpkp`, `expectct` or `expectstaple` object; nothing else in them is stable.
import type { NormalizedEvent } from '../event/event.ts';

const LOCAL = "'self'";

export function securityReportValues(event: NormalizedEvent): string[] | undefined {
  const csp = record(event.csp);
  if (csp) return cspValues(csp);
  for (const [field, name] of [
    ['hpkp', 'hpkp'],
    ['expectstaple', 'expect-staple'],
    ['expectct', 'expect-ct'],
  ] as const) {
    const report = record(event[field]);
    if (report) return [name, text(report.hostname)];
  }
  return undefined;
}

/** The effective directive, then the blocked URI's origin (or, for an inline or eval'd script, which). */
function cspValues(csp: Record<string, unknown>): string[] {
  const directive = text(csp.effective_directive);
  const blocked = normalizedBlockedUri(text(csp.blocked_uri));
  const violated = text(csp.violated_directive);
  if (violated && directive === 'script-src' && blocked === LOCAL) {
    if (violated.includes("'unsafe-inline'")) return [directive, "'unsafe-inline'"];
    if (violated.includes("'unsafe-eval'")) return [directive, "'unsafe-eval'"];
  }
  return [directive, blocked];
}

/** `https://cdn.x:8443/a.js` -> `cdn.x:8443`; empty or `self` -> `'self'`; a bare scheme such as `data` -> `data:`. */
function normalizedBlockedUri(uri: string): string {
  if (uri === '' || uri === LOCAL || uri === 'self') return LOCAL;
  if (!uri.includes(':')) return `${uri}:`;
  const match = /^([a-z][a-z0-9+.-]*):(?:\/\/([^/?#]*))?/i.exec(uri);
  if (!match) return uri;
  const scheme = match[1]!.toLowerCase();
  // The whole authority, as written (Python's urlsplit netloc): port and case kept.
  const host = match[2] ?? '';
  if (scheme === 'http' || scheme === 'https') return host;
  return host ? `${scheme}://${host}` : `${scheme}:`;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}
