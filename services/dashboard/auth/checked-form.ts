// A posted form, if it came from our own pages: the origin is checked before the body is read,
// then the CSRF token the form (or htmx's X-Errata-CSRF header) carries. Otherwise the 403 page
// saying what did not match is sent, and the answer is undefined: the caller just returns.
import type Koa from 'koa';
import { h } from 'preact';
import type { AssetSet } from '../assets/asset-store.ts';
import { RefusedPage } from '../pages/refused.tsx';
import { sendPage } from '../render-page.ts';
import { checkOrigin, TOKEN_REFUSAL, tokensMatch } from './csrf.ts';
import { readForm } from './form-body.ts';

/** The header htmx requests carry the session's CSRF token in (assets/csrf-header.ts sets it). */
const CSRF_HEADER = 'X-Errata-CSRF';

export async function checkedForm(
  ctx: Koa.Context,
  assets: AssetSet,
  baseUrl: string,
  expected: string | undefined,
): Promise<URLSearchParams | undefined> {
  let refusal = checkOrigin(ctx, baseUrl);
  const form = refusal ? undefined : await readForm(ctx);
  if (form && !tokensMatch(form.get('csrf') ?? (ctx.get(CSRF_HEADER) || null), expected)) refusal = TOKEN_REFUSAL;
  if (!refusal) return form;
  sendPage(ctx, 403, h(RefusedPage, { assets, refusal }));
  return undefined;
}
