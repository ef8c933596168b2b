// The envelopes around text Errata did not write. Everything in a tool result that was captured
// from an application (messages, frames, breadcrumbs, logs, release names, raw payloads) travels
// under one `untrustedData` key in the structured result, and between <untrusted-data> markers in
// the text (core/agent/untrusted-envelope.ts, which the issue page's Markdown uses too). Text
// written through the tools by agent tokens (resolution notes, commits, releases) is neither
// captured data nor Errata's own facts: it travels under `agentWrittenData`, between
// <agent-written-data> markers, escaped alike. Lists of records are written as tables where that
// is shorter (text-tables.ts).
import { asciiJson, ESCAPED, UNTRUSTED_CLOSE, UNTRUSTED_OPEN } from '../core/agent/untrusted-envelope.ts';
import { withTables } from './text-tables.ts';

const AGENT_WRITTEN_OPEN = '<agent-written-data>';
const AGENT_WRITTEN_CLOSE = '</agent-written-data>';

/** Captured application data as text: markers around escaped JSON. */
export function untrustedText(data: unknown): string {
  return `${UNTRUSTED_OPEN}\n${tabledJson(data)}\n${UNTRUSTED_CLOSE}`;
}

/**
 * Errata's own facts, as text: escaped JSON without markers. Nothing captured is among them, but
 * names people gave (tokens, projects) are, so they are escaped alike: no line of the facts can
 * draw a marker either.
 */
export function factsText(data: unknown): string {
  return tabledJson(data);
}

/** Text people or agent tokens wrote, as text: markers around escaped JSON. */
export function agentWrittenText(data: unknown): string {
  return `${AGENT_WRITTEN_OPEN}\n${tabledJson(data)}\n${AGENT_WRITTEN_CLOSE}`;
}

/**
 * The length of a value as the answer writes it (escaped), without writing it: a character
 * outside ASCII takes six. Budgets measured on plain JSON let text of CJK or emoji run six to
 * twelve times past them.
 */
export function escapedJsonLength(data: unknown): number {
  const json = JSON.stringify(data) ?? '';
  let escaped = 0;
  for (const _ of json.matchAll(ESCAPED)) escaped++;
  return json.length + 5 * escaped;
}

/** Escaped JSON on one line (no indentation: it only cost an agent tokens), lists as tables. */
function tabledJson(data: unknown): string {
  return asciiJson(withTables(data));
}
