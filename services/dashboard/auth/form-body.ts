// Reads a dashboard form post (application/x-www-form-urlencoded, what a plain HTML form sends)
// into its fields. Small forms only: a sign-in is a few hundred bytes.
import type Koa from 'koa';
import { UserInputError } from '../../core/errors.ts';
import { readBodyText } from '../../runtime/json-body.ts';

const MAX_FORM_BYTES = 16 * 1024;

export async function readForm(ctx: Koa.Context): Promise<URLSearchParams> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new UserInputError('the dashboard takes form posts (application/x-www-form-urlencoded) only');
  }
  return new URLSearchParams(await readBodyText(ctx.req, MAX_FORM_BYTES));
}
