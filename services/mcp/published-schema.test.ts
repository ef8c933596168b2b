// The safe-integer bounds go wherever zod puts them; every other bound and key stays.
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withoutSafeIntegerBounds } from './published-schema.ts';

const published = (shape: z.ZodRawShape) => {
  const inputSchema = z.toJSONSchema(z.object(shape), { target: 'draft-7' }) as Tool['inputSchema'];
  return withoutSafeIntegerBounds([{ name: 't', inputSchema }])[0]!.inputSchema.properties!;
};

describe('withoutSafeIntegerBounds', () => {
  it('drops the bounds zod gives every integer, nested or nullable, and keeps the ones a schema set', () => {
    const properties = published({
      plain: z.number().int(),
      count: z.number().int().nonnegative(),
      positive: z.number().int().positive(),
      limit: z.number().int().min(1).max(100),
      upTo: z.number().int().max(100),
      nullable: z.number().int().nullable(),
      list: z.array(z.object({ n: z.number().int().describe('a number') })),
      ratio: z.number().max(Number.MAX_SAFE_INTEGER),
    });
    expect(properties).toEqual({
      plain: { type: 'integer' },
      count: { type: 'integer', minimum: 0 },
      positive: { type: 'integer', exclusiveMinimum: 0 },
      limit: { type: 'integer', minimum: 1, maximum: 100 },
      upTo: { type: 'integer', maximum: 100 },
      nullable: { anyOf: [{ type: 'integer' }, { type: 'null' }] },
      list: {
        type: 'array',
        items: {
          type: 'object',
          properties: { n: { type: 'integer', description: 'a number' } },
          required: ['n'],
          additionalProperties: false,
        },
      },
      // Not an integer: a bound a schema set on a number is its own, kept whatever its value.
      ratio: { type: 'number', maximum: Number.MAX_SAFE_INTEGER },
    });
  });
});
