// Objects that refuse keys they do not know. zod's default object strips them without a word,
// so a filter an agent believed it passed (`environment`, `shortIds`) silently widened a bulk
// write; every MCP tool input, every JSON body and every query string under /api/v1 is built
// with this instead. The refusal names the unknown keys and lists the accepted ones, so the
// caller can fix it; `noun` says what a key is to the caller ("query parameter").
import { z } from 'zod';

export function strictObject<S extends z.ZodRawShape>(shape: S, noun = 'key') {
  const accepted = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownKeysMessage(issue.keys, accepted, noun) : undefined),
  });
}

function unknownKeysMessage(unknown: readonly string[], accepted: readonly string[], noun = 'key'): string {
  const named = unknown
    .slice(0, 5)
    .map((key) => JSON.stringify(key.slice(0, 60)))
    .join(', ');
  const more = unknown.length > 5 ? ` and ${unknown.length - 5} more` : '';
  const what = `unknown ${noun}${unknown.length === 1 ? '' : 's'} ${named}${more}`;
  return accepted.length > 0 ? `${what}; the accepted ${noun}s are ${accepted.join(', ')}` : `${what}; this takes no ${noun}s`;
}
