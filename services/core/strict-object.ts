// Objects that refuse keys they do not know. zod's default object strips them without a word,
// so a filter an agent believed it passed (`environment`, `shortIds`) silently widened a bulk
// write; every MCP tool input and every JSON body under /api/v1 is built with this instead.
// The refusal names the unknown keys and lists the accepted ones, so the caller can fix it.
import { z } from 'zod';

export function strictObject<S extends z.ZodRawShape>(shape: S) {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, accepted) : undefined),
  });
}

export function unknownKeysMessage(unknown: readonly string[], accepted: readonly string[]): string {
  const named = unknown
    .slice(0, 5)
    .map((key) => JSON.stringify(key.slice(0, 60)))
    .join(', ');
  const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
  const what = `unknown key${unknown.length === 1 ? '' : 's'} ${named}${more}`;
  return accepted.length > 0 ? `${what}; the accepted keys are ${accepted.join(', ')}` : `${what}; this takes no keys`;
}
