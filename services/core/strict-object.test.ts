import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { strictObject } from './strict-object.ts';

describe('strictObject', () => {
  const schema = strictObject({ project: z.string(), limit: z.number().optional() });

  it('refuses an unknown key, naming it and the accepted ones', () => {
    const result = schema.safeParse({ project: 'web', environment: 'staging' });
    expect(result.success).toBe(false);
    expect(result.error!.issues.map((i) => i.message)).toEqual([
      'unknown key "environment"; the accepted keys are project, limit',
    ]);
  });

  it('names several, bounded, and says when nothing is taken', () => {
    const keys = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((k) => [k, 1]));
    expect(schema.safeParse({ project: 'web', ...keys }).error!.issues[0]!.message).toBe(
      'unknown keys "a", "b", "c", "d", "e" and 2 more; the accepted keys are project, limit',
    );
    expect(strictObject({}).safeParse({ x: 1 }).error!.issues[0]!.message).toBe('unknown key "x"; this takes no keys');
  });

  it('names the keys as the caller knows them', () => {
    const query = strictObject({ status: z.string().optional() }, 'query parameter');
    expect(query.safeParse({ sort: 'new', env: 'x' }).error!.issues[0]!.message).toBe(
      'unknown query parameters "sort", "env"; the accepted query parameters are status',
    );
    expect(strictObject({}, 'query parameter').safeParse({ x: '1' }).error!.issues[0]!.message).toBe(
      'unknown query parameter "x"; this takes no query parameters',
    );
  });

  it('keeps the message through partial(), and other messages as they were', () => {
    expect(schema.partial().safeParse({ extra: true }).error!.issues[0]!.message).toContain('unknown key "extra"');
    expect(schema.safeParse({ project: 1 }).error!.issues[0]!.message).toMatch(/expected string/);
  });
});
