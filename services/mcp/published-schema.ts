// What tools/list publishes, less what says nothing: zod gives every `.int()` the bounds of a
// safe JavaScript integer (minimum -9007199254740991, maximum 9007199254740991), which the SDK
// renders into every integer of every input and output schema. No argument or result comes near
// them, and an agent reads them on every tools/list; a bound a tool set itself (list_issues'
// limit 1..100, a count's minimum 0) is kept.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

export function withoutSafeIntegerBounds(tools: Tool[]): Tool[] {
  return tools.map((tool) => stripped(tool) as Tool);
}

function stripped(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stripped);
  if (value === null || typeof value !== 'object') return value;
  const schema = value as Record<string, unknown>;
  const integer = schema.type === 'integer';
  return Object.fromEntries(
    Object.entries(schema)
      .filter(
        ([key, bound]) =>
          !integer ||
          !((key === 'minimum' && bound === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && bound === Number.MAX_SAFE_INTEGER)),
      )
      .map(([key, inner]) => [key, stripped(inner)]),
  );
}
