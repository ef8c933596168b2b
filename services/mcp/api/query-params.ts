// Query strings under /api/v1 are strict, like the JSON bodies: an unknown parameter is refused
// with 400, naming it and listing the ones the endpoint takes. A schema that let unknown keys
// through made `?environment=staging` answer every environment as if it had been applied.
// Every handler reads its query through here before it does anything, `noQueryParams` for the
// endpoints that take none.
import type Koa from 'koa';
import type { z } from 'zod';
import { UserInputError } from '../../core/errors.ts';
import { strictObject } from '../../core/strict-object.ts';

/** A strict schema for an endpoint's query parameters. */
export function queryShape<S extends z.ZodRawShape>(shape: S) {
  return strictObject(shape, 'query parameter');
}

const NONE = queryShape({});

/** The request's query parsed with `schema`, or a 400 saying which parameter is wrong and why. */
export function queryParams<T extends z.ZodType>(ctx: Koa.Context, schema: T): z.infer<T> {
  const result = schema.safeParse(ctx.query);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new UserInputError(
      issue.code === 'unrecognized_keys'
        ? issue.message
        : `invalid query parameter ${String(issue.path[0] ?? '')}: ${issue.message}`,
    );
  }
  return result.data;
}

/** For an endpoint that takes no query parameters: any is refused by name. */
export function noQueryParams(ctx: Koa.Context): void {
  queryParams(ctx, NONE);
}
