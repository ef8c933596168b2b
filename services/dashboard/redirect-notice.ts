// After a form is sent, the page redirects to itself with `?saved=<what>` (or `?done=`), and the
// page shows the notice its own table gives that word. Only the table's own keys count: a word
// such as `constructor` found a member of Object.prototype and rendered function source.
import type Koa from 'koa';
import { ownValue } from '../core/event/coerce.ts';

/** The notice `?<param>=` names in `notices`; none for an unknown word, a repeated parameter or none at all. */
export function redirectNotice<T>(ctx: Koa.Context, param: 'saved' | 'done', notices: Record<string, T>): T | undefined {
  const word = ctx.query[param];
  return typeof word === 'string' ? ownValue(notices, word) : undefined;
}
