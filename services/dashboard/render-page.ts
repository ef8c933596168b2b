// Sends a page: preact renders it to a string (escaping every text and attribute value), after
// the doctype; gzipped when the browser accepts it, as HTML compresses about fivefold.
import { gzipSync } from 'node:zlib';
import type Koa from 'koa';
import type { JSX } from 'preact';
import { renderToString } from 'preact-render-to-string';

const WORTH_COMPRESSING = 1024;

export function sendPage(ctx: Koa.Context, status: number, page: JSX.Element): void {
  const html = Buffer.from(`<!doctype html>${renderToString(page)}`);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  // Pages are per request (a user's, later): never stored by a shared cache.
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Vary', 'Accept-Encoding');
  if (html.length >= WORTH_COMPRESSING && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = gzipSync(html);
  } else {
    ctx.body = html;
  }
}
